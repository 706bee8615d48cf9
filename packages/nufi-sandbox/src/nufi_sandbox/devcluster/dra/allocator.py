"""The structured-parameters allocator, as the scheduler runs it for one node: pure, no store.

For each request of each claim, in order: devices of the node's complete pools (`pools`), not held by
another claim, where every selector of the device class AND of the request is true; `ExactCount`
(count, default 1) or `All`; the claim's `matchAttribute` / `distinctAttribute` constraints; the
`firstAvailable` subrequests tried in order. First fit, going back over earlier choices when a later
request cannot be met, as upstream does. A selector that fails on a device aborts the allocation
(`AllocationError`), as upstream's "CEL runtime error" does.

Not modelled: device taints and tolerations, admin access, consumable capacity and shared counters,
binding conditions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nufi_sandbox.devcluster.dra.cel import CelCompileError, CelRuntimeError, compile_selector
from nufi_sandbox.devcluster.dra.pools import Device, DeviceId, Pool, gather_pools

Obj = dict[str, Any]

# Upstream gives up after a time budget; a step budget keeps the dev cluster's answer deterministic.
_MAX_STEPS = 200_000


class AllocationError(Exception):
    """A claim or class the allocator cannot work with (a failing selector, a missing class)."""


@dataclass(frozen=True)
class _Alternative:
    name: str  # as written in the result: "<request>" or "<request>/<subrequest>"
    parent: str
    class_name: str
    selectors: tuple[str, ...]
    all_devices: bool
    count: int


@dataclass(frozen=True)
class _Constraint:
    requests: frozenset[str]  # empty: every request of the claim
    attribute: str
    distinct: bool

    def covers(self, alternative: _Alternative) -> bool:
        return not self.requests or bool({alternative.parent, alternative.name} & self.requests)


def _alternative(name: str, parent: str, body: Mapping[str, Any]) -> _Alternative:
    return _Alternative(
        name=name,
        parent=parent,
        class_name=str(body.get("deviceClassName", "")),
        selectors=tuple(str((s.get("cel") or {}).get("expression", "")) for s in body.get("selectors") or []),
        all_devices=body.get("allocationMode") == "All",
        count=int(body.get("count") or 1),
    )


def _alternatives(request: Mapping[str, Any]) -> list[_Alternative]:
    name = str(request.get("name", ""))
    if request.get("firstAvailable"):
        return [_alternative(f"{name}/{sub.get('name', '')}", name, sub) for sub in request["firstAvailable"]]
    return [_alternative(name, name, request.get("exactly") or {})]


def _constraints(devices: Mapping[str, Any]) -> list[_Constraint]:
    out = []
    for raw in devices.get("constraints") or []:
        requests = frozenset(str(r) for r in raw.get("requests") or [])
        if raw.get("matchAttribute"):
            out.append(_Constraint(requests, str(raw["matchAttribute"]), distinct=False))
        if raw.get("distinctAttribute"):
            out.append(_Constraint(requests, str(raw["distinctAttribute"]), distinct=True))
    return out


def _claim_key(claim: Obj) -> str:
    return f"{claim['metadata'].get('namespace', '')}/{claim['metadata']['name']}"


@dataclass
class _Claim:
    obj: Obj
    requests: list[list[_Alternative]]
    constraints: list[_Constraint]
    picked: list[tuple[_Alternative, Device]]


def _claim(claim: Obj) -> _Claim:
    devices = claim.get("spec", {}).get("devices") or {}
    return _Claim(claim, [_alternatives(r) for r in devices.get("requests") or []], _constraints(devices), [])


class _Search:
    def __init__(self, claims: Sequence[Obj], classes: Mapping[str, Obj], pools: Sequence[Pool]) -> None:
        self.claims = [_claim(claim) for claim in claims]
        self.classes = classes
        self.pools = pools
        self.devices = [device for pool in pools if pool.complete for device in pool.devices]
        self.used: set[DeviceId] = set()
        self.steps = 0
        self._matches: dict[tuple[int, str, DeviceId], bool] = {}

    def _selectors_match(self, owner: str, selectors: Sequence[str], device: Device) -> bool:
        for index, expression in enumerate(selectors):
            try:
                if not compile_selector(expression).matches(device.cel_input):
                    return False
            except CelCompileError as exc:
                raise AllocationError(f"{owner}: selector #{index}: CEL compile error: {exc.detail}") from exc
            except CelRuntimeError as exc:
                raise AllocationError(f"{owner}: selector #{index}: CEL runtime error: {exc}") from exc
        return True

    def matches(self, claim_index: int, alternative: _Alternative, device: Device) -> bool:
        key = (claim_index, alternative.name, device.id)
        if key not in self._matches:
            claim = self.claims[claim_index].obj
            device_class = self.classes.get(alternative.class_name)
            if device_class is None:
                name = alternative.class_name
                raise AllocationError(
                    f"claim {_claim_key(claim)}, request {alternative.name}: could not retrieve device class "
                    f'{name}: deviceclass.resource.k8s.io "{name}" not found'
                )
            class_selectors = tuple(
                str((s.get("cel") or {}).get("expression", ""))
                for s in device_class.get("spec", {}).get("selectors") or []
            )
            self._matches[key] = self._selectors_match(
                f"class {alternative.class_name}", class_selectors, device
            ) and self._selectors_match(f"claim {_claim_key(claim)}", alternative.selectors, device)
        return self._matches[key]

    def constraints_hold(self, claim: _Claim, alternative: _Alternative, device: Device) -> bool:
        for constraint in claim.constraints:
            if not constraint.covers(alternative):
                continue
            value = device.attribute(constraint.attribute)
            if value is None:
                return False
            others = [d.attribute(constraint.attribute) for a, d in claim.picked if constraint.covers(a)]
            if constraint.distinct and value in others:
                return False
            if not constraint.distinct and any(other != value for other in others):
                return False
        return True

    def request(self, claim_index: int, request_index: int) -> bool:
        if claim_index == len(self.claims):
            return True
        claim = self.claims[claim_index]
        if request_index == len(claim.requests):
            return self.request(claim_index + 1, 0)
        for alternative in claim.requests[request_index]:
            if alternative.all_devices:
                if self._all(claim_index, request_index, alternative):
                    return True
            elif self._pick(claim_index, request_index, alternative, alternative.count, 0):
                return True
        return False

    def _pick(
        self, claim_index: int, request_index: int, alternative: _Alternative, left: int, start: int
    ) -> bool:
        if left == 0:
            return self.request(claim_index, request_index + 1)
        claim = self.claims[claim_index]
        for position in range(start, len(self.devices)):
            self.steps += 1
            if self.steps > _MAX_STEPS:
                return False
            device = self.devices[position]
            if device.id in self.used or not self.matches(claim_index, alternative, device):
                continue
            if not self.constraints_hold(claim, alternative, device):
                continue
            self._take(claim, alternative, device)
            if self._pick(claim_index, request_index, alternative, left - 1, position + 1):
                return True
            self._give_back(claim, device)
        return False

    def _all(self, claim_index: int, request_index: int, alternative: _Alternative) -> bool:
        claim = self.claims[claim_index]
        wanted = []
        for pool in self.pools:
            matching = [d for d in pool.devices if self.matches(claim_index, alternative, d)]
            if matching and not pool.complete:
                raise AllocationError(
                    f"claim {_claim_key(claim.obj)}, request {alternative.name}: asks for all devices, "
                    f"but resource pool {pool.driver}/{pool.name} is currently being updated"
                )
            wanted.extend(matching)
        if not wanted or any(d.id in self.used for d in wanted):
            return False
        taken = []
        for device in wanted:
            if not self.constraints_hold(claim, alternative, device):
                break
            self._take(claim, alternative, device)
            taken.append(device)
        else:
            if self.request(claim_index, request_index + 1):
                return True
        for device in reversed(taken):
            self._give_back(claim, device)
        return False

    def _take(self, claim: _Claim, alternative: _Alternative, device: Device) -> None:
        claim.picked.append((alternative, device))
        self.used.add(device.id)

    def _give_back(self, claim: _Claim, device: Device) -> None:
        claim.picked.pop()
        self.used.discard(device.id)


def _node_selector(picked: Sequence[tuple[_Alternative, Device]]) -> Obj | None:
    wheres = [device.where for _, device in picked]
    for kind, value in wheres:
        if kind == "nodeName":
            term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [value]}]}
            return {"nodeSelectorTerms": [term]}
    for kind, value in wheres:
        if kind == "nodeSelector":
            return dict(value)
    return None


def _config(claim: _Claim, classes: Mapping[str, Obj]) -> list[Obj]:
    config: list[Obj] = []
    for alternative in dict.fromkeys(a for a, _ in claim.picked):
        for entry in classes[alternative.class_name].get("spec", {}).get("config") or []:
            config.append({"source": "FromClass", "requests": [alternative.name], **entry})
    for entry in (claim.obj.get("spec", {}).get("devices") or {}).get("config") or []:
        config.append({"source": "FromClaim", **entry})
    return config


def _result(claim: _Claim, classes: Mapping[str, Obj]) -> Obj:
    results = [
        {"request": a.name, "driver": d.id.driver, "pool": d.id.pool, "device": d.id.device}
        for a, d in claim.picked
    ]
    devices: Obj = {"results": results}
    config = _config(claim, classes)
    if config:
        devices["config"] = config
    allocation: Obj = {"devices": devices}
    selector = _node_selector(claim.picked)
    if selector is not None:
        allocation["nodeSelector"] = selector
    return allocation


def allocate(
    claims: Sequence[Obj],
    classes: Mapping[str, Obj],
    slices: Sequence[Obj],
    allocated: set[DeviceId],
    node: Obj,
) -> list[Obj] | None:
    """Each claim's `status.allocation` on `node`, in order, or None if they do not all fit there.

    `allocated` holds the devices other claims already have; `classes` are DeviceClasses by name."""
    search = _Search(claims, classes, gather_pools(slices, node))
    search.used = set(allocated)
    if not search.request(0, 0):
        return None
    return [_result(claim, classes) for claim in search.claims]


def class_devices(device_class: Obj, slices: Sequence[Obj], node: Obj) -> list[DeviceId]:
    """The devices of the node's complete pools the class selects, held or free; a selector that fails
    on a device leaves it out (the filter reports the error when a pod asks)."""
    search = _Search([], {}, gather_pools(slices, node))
    selectors = tuple(
        str((s.get("cel") or {}).get("expression", ""))
        for s in device_class.get("spec", {}).get("selectors") or []
    )
    chosen = []
    for device in search.devices:
        try:
            if search._selectors_match("class", selectors, device):
                chosen.append(device.id)
        except AllocationError:
            continue
    return chosen
