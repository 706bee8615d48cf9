"""Accelerators for workloads: which device types a project can ask for, and where a request fits.

A request names a device type of the catalog and a count per pod. `resolve` turns it into a
`Placement` (the type's resource key, and the node selector and tolerations it carries, none today)
or refuses it at the edge: an unknown or disabled type, a type no node of the cluster advertises, a
count larger than any node can ever give (its allocatable). A count that fits a node's allocatable
but not what is free right now is accepted: the pod waits, and `pending_reason` says what it waits for
in the accelerator's words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nufi.auth import Principal, require_user
from nufi.cluster import ClusterReader
from nufi.devices.capacity import Inventory
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.fetcher_registry import FetcherRegistry, UnknownFetcher
from nufi.devices.spec import DeviceType
from nufi.errors import ValidationFailed

# More devices than any node carries today, and small enough that a typo is caught.
MAX_DEVICES_PER_POD = 128


class AcceleratorRequest(BaseModel):
    # strict: `count: true` or `"1"` is refused, not read as 1.
    model_config = ConfigDict(extra="forbid", strict=True)

    device_type: str = Field(min_length=1, max_length=63, description="the id of an enabled device type")
    count: int = Field(ge=1, le=MAX_DEVICES_PER_POD, description="devices per pod")


@dataclass(frozen=True)
class Placement:
    device_type: str
    resource_key: str
    count: int
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class NodeOffer:
    node: str
    capacity: int
    allocatable: int
    free: int


@dataclass(frozen=True)
class AcceleratorOffer:
    """An enabled device type present in the cluster, with its devices in total and per node."""

    device_type: str
    name: str
    vendor: str
    resource_key: str
    capacity: int
    allocatable: int
    free: int
    nodes: tuple[NodeOffer, ...]


class AcceleratorService:
    def __init__(self, catalog: DeviceCatalog, fetchers: FetcherRegistry, reader: ClusterReader) -> None:
        self._catalog = catalog
        self._fetchers = fetchers
        # Nodes and pods: the watch-fed cache's while it serves, else listed.
        self._reader = reader

    async def available(self, principal: Principal | None) -> list[AcceleratorOffer]:
        """Every enabled type some node advertises, with free counts (allocatable minus what bound,
        unfinished pods hold), from one read of the cluster."""
        require_user(principal)
        types = await self._catalog.list(principal, enabled_only=True)
        state = await self._reader.state()
        offers = []
        for device_type in types:
            try:
                inventory = self._fetchers.for_type(device_type).inventory(device_type, state)
            except UnknownFetcher:
                continue
            if inventory.nodes_with_devices:
                offers.append(_offer(device_type, inventory))
        return offers

    async def resolve(self, request: AcceleratorRequest, *, field: str = "accelerator") -> Placement:
        device_type = await self._catalog.find(request.device_type)
        type_field = f"{field}.device_type"
        if device_type is None:
            raise ValidationFailed(
                f"there is no device type {request.device_type!r}; choose one of "
                f"GET /api/v1/projects/<project>/accelerators",
                field=type_field,
            )
        if not device_type.enabled:
            raise ValidationFailed(
                f"device type {device_type.id!r} is disabled; an administrator can enable it, or choose "
                "another one",
                field=type_field,
            )
        inventory = await self._inventory(device_type, type_field)
        offering = [node for node in inventory.nodes if node.allocatable > 0]
        if not offering:
            raise ValidationFailed(
                f"no node of the cluster offers {device_type.resource_key} ({device_type.name}); "
                "choose a device type the cluster has",
                field=type_field,
            )
        most = max(node.allocatable for node in offering)
        if request.count > most:
            figures = ", ".join(f"{node.node} has {node.allocatable}" for node in offering)
            raise ValidationFailed(
                f"no node can ever give {request.count} {device_type.resource_key} to one pod: {figures}; "
                f"ask for at most {most}",
                field=f"{field}.count",
                most=most,
            )
        return Placement(device_type.id, device_type.resource_key, request.count)

    async def pending_reason(self, placement: Placement) -> str:
        """Why a pod asking for `placement` is not scheduled, counted in devices:
        "no node has 5 free hyperaccel.ai/lpu: lpu-node-1 has 4, lpu-node-2 has 2"."""
        key = placement.resource_key
        device_type = await self._catalog.find(placement.device_type)
        if device_type is None:
            return f"device type {placement.device_type!r} no longer exists"
        inventory = await self._inventory(device_type, "accelerator.device_type")
        nodes = [node for node in inventory.nodes if node.capacity or node.allocatable]
        if not nodes:
            return f"no node of the cluster has {key}"
        free = {node.node: max(node.allocatable - node.allocated, 0) for node in nodes}
        figures = ", ".join(f"{node} has {count}" for node, count in free.items())
        fitting = [node for node, count in free.items() if count >= placement.count]
        if not fitting:
            return f"no node has {placement.count} free {key}: {figures}"
        return (
            f"{', '.join(fitting)} {'has' if len(fitting) == 1 else 'have'} {placement.count} free {key}, "
            "but the scheduler ruled them out for another reason (see the pod's events)"
        )

    async def _inventory(self, device_type: DeviceType, field: str) -> Inventory:
        try:
            fetcher = self._fetchers.for_type(device_type)
        except UnknownFetcher as exc:
            raise ValidationFailed(exc.detail, field=field) from None
        return fetcher.inventory(device_type, await self._reader.state())


def _offer(device_type: DeviceType, inventory: Inventory) -> AcceleratorOffer:
    nodes = tuple(
        NodeOffer(node.node, node.capacity, node.allocatable, max(node.allocatable - node.allocated, 0))
        for node in inventory.nodes
        if node.capacity or node.allocatable
    )
    return AcceleratorOffer(
        device_type=device_type.id,
        name=device_type.name,
        vendor=device_type.vendor,
        resource_key=device_type.resource_key,
        capacity=sum(n.capacity for n in nodes),
        allocatable=sum(n.allocatable for n in nodes),
        free=sum(n.free for n in nodes),
        nodes=nodes,
    )
