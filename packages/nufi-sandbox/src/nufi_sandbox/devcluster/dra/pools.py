"""The devices a node can be given: ResourceSlices gathered into pools, as the allocator reads them.

A pool is (driver, pool name). Only its slices at the newest `generation` count, and only when all
`resourceSliceCount` of them are seen is the pool complete; an incomplete pool is skipped (and fails a
request for all devices), since the driver is still rewriting it. Pools are visited by driver and
name, their slices by name and devices in the order a slice lists them: upstream's first-fit order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nufi_sandbox.devcluster.dra.cel import device_input, split_name
from nufi_sandbox.devcluster.selectors.node_selector import matches_node_selector

Obj = dict[str, Any]


@dataclass(frozen=True, order=True)
class DeviceId:
    """A device's identity: the tuple <driver>/<pool>/<device>."""

    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(frozen=True)
class Device:
    id: DeviceId
    raw: Mapping[str, Any]
    # Where the device is usable: ("nodeName", name), ("nodeSelector", selector) or ("allNodes", None).
    where: tuple[str, Any]
    cel_input: Mapping[str, Any] = field(compare=False)

    def attribute(self, qualified: str) -> Any:
        """A constraint's attribute (`domain/name`); the driver's own may be stored without its domain."""
        domain, ident = split_name(self.id.driver, qualified)
        attributes = self.raw.get("attributes") or {}
        raw = attributes.get(qualified)
        if raw is None and domain == self.id.driver:
            raw = attributes.get(ident)
        if not raw:
            return None
        return next(iter(raw.items()))


@dataclass(frozen=True)
class Pool:
    driver: str
    name: str
    complete: bool
    devices: tuple[Device, ...]


def _where(spec: Mapping[str, Any], device: Mapping[str, Any]) -> tuple[str, Any] | None:
    source = device if spec.get("perDeviceNodeSelection") else spec
    if source.get("nodeName"):
        return ("nodeName", source["nodeName"])
    if source.get("nodeSelector"):
        return ("nodeSelector", source["nodeSelector"])
    if source.get("allNodes"):
        return ("allNodes", None)
    return None


def _usable_on(where: tuple[str, Any], node: Obj) -> bool:
    kind, value = where
    if kind == "nodeName":
        return bool(value == node["metadata"]["name"])
    if kind == "nodeSelector":
        return matches_node_selector(value, node)
    return kind == "allNodes"


def _newest(slices: Iterable[Obj]) -> dict[tuple[str, str], list[Obj]]:
    by_pool: dict[tuple[str, str], list[Obj]] = {}
    for item in slices:
        spec = item.get("spec") or {}
        key = (str(spec.get("driver", "")), str((spec.get("pool") or {}).get("name", "")))
        by_pool.setdefault(key, []).append(item)
    for key, members in by_pool.items():
        newest = max(int(s["spec"]["pool"].get("generation", 0)) for s in members)
        by_pool[key] = sorted(
            (s for s in members if int(s["spec"]["pool"].get("generation", 0)) == newest),
            key=lambda s: str(s["metadata"]["name"]),
        )
    return by_pool


def gather_pools(slices: Sequence[Obj], node: Obj) -> list[Pool]:
    """The pools with at least one device usable on `node`, each with only those devices."""
    pools = []
    for (driver, name), members in sorted(_newest(slices).items()):
        expected = int(members[0]["spec"]["pool"].get("resourceSliceCount", 1))
        devices = []
        for item in members:
            spec = item["spec"]
            for raw in spec.get("devices") or []:
                where = _where(spec, raw)
                if where is not None and _usable_on(where, node):
                    ident = DeviceId(driver, name, str(raw.get("name", "")))
                    devices.append(Device(ident, raw, where, device_input(driver, raw)))
        if devices:
            pools.append(Pool(driver, name, len(members) == expected, tuple(devices)))
    return pools


def allocated_devices(claims: Iterable[Obj]) -> set[DeviceId]:
    """Every device some claim's allocation holds."""
    taken = set()
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation") or {}
        for result in (allocation.get("devices") or {}).get("results") or []:
            taken.add(DeviceId(result.get("driver", ""), result.get("pool", ""), result.get("device", "")))
    return taken
