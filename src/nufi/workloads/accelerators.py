"""Accelerators for workloads: which device types a project can ask for, and where a request fits.

A request names a device type of the catalog and a count per pod. `resolve` turns it into a
`Placement` (the type's resource key, and the node selector and tolerations it carries, none today)
or refuses it at the edge: an unknown or disabled type, a type no node of the cluster advertises, a
count larger than any node can ever give (its allocatable). A count that fits a node's allocatable
but not what is free right now is accepted: the pod waits, and `pending_reason` says what it waits for
in the accelerator's words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nufi.auth import Principal, require_user
from nufi.cluster import ClusterReader
from nufi.devices.capacity import Inventory
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.fetcher_registry import FetcherRegistry, UnknownFetcher
from nufi.devices.spec import DeviceType
from nufi.errors import NufiError, ValidationFailed
from nufi.messages import Message
from nufi.workloads.kube_reasons import names_resource, renamed
from nufi.workloads.quotas.recent import RecentQuotas
from nufi.workloads.quotas.room import Demand, Replicas, device_resource, devices_demand, tightest
from nufi.workloads.quotas.service import QuotaService

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
    # The project's quota of the type's devices (the tightest ResourceQuota of its namespace) and what
    # that quota counts in use; None when no quota limits them.
    quota: int | None = None
    in_use: int | None = None


class AcceleratorService:
    def __init__(
        self,
        catalog: DeviceCatalog,
        fetchers: FetcherRegistry,
        reader: ClusterReader,
        *,
        quotas: QuotaService | None = None,
    ) -> None:
        self._catalog = catalog
        self._quotas = quotas
        # Offers are what pages refreshing every few seconds show: their quotas are read once a moment.
        self._recent_quotas = None if quotas is None else RecentQuotas(quotas.namespace_quotas)
        self._fetchers = fetchers
        # Nodes and pods: the watch-fed cache's while it serves, else listed.
        self._reader = reader

    async def available(
        self, principal: Principal | None, project: str | None = None
    ) -> list[AcceleratorOffer]:
        """Every enabled type some node advertises, with free counts (allocatable minus what bound,
        unfinished pods hold), from one read of the cluster; with `project`, each with the project's
        quota and what it has in use."""
        require_user(principal)
        types = await self._catalog.list(principal, enabled_only=True)
        state = await self._reader.state()
        quotas = await self._recent_quotas.of(project) if project and self._recent_quotas else []
        offers = []
        for device_type in types:
            try:
                inventory = self._fetchers.for_type(device_type).inventory(device_type, state)
            except UnknownFetcher:
                continue
            if inventory.nodes_with_devices:
                limit = tightest(quotas, device_resource(device_type.resource_key))
                offer = _offer(device_type, inventory)
                if limit is not None:
                    offer = replace(offer, quota=int(limit.hard), in_use=int(limit.used))
                offers.append(offer)
        return offers

    async def check_quota(
        self,
        project: str,
        placement: Placement,
        *,
        pods: int = 1,
        field: str = "accelerator.count",
        replicas: Replicas | None = None,
        also: Sequence[Demand] = (),
    ) -> None:
        """Refuse (422) `pods` more pods of `placement` whose devices a quota of the project has no
        room for, as quota admission would refuse them, naming the field to change (`field`, or the
        replica count when one pod fits and only their number does not) and the type by its name;
        and likewise what the write asks `also` (its pods, its claim's storage), each naming its own
        field."""
        if self._quotas is None:
            return
        devices = devices_demand(
            placement.resource_key,
            placement.count * pods,
            field,
            name=await self.type_name(placement.device_type),
            replicas=replicas,
        )
        await self._quotas.check_demands(project, [devices, *also])

    async def resolve(self, request: AcceleratorRequest, *, field: str = "accelerator") -> Placement:
        device_type = await self._catalog.find(request.device_type)
        type_field = f"{field}.device_type"
        if device_type is None:
            raise ValidationFailed(
                code="accelerator.unknown_type", field=type_field, params={"device_type": request.device_type}
            )
        if not device_type.enabled:
            raise ValidationFailed(
                code="accelerator.type_disabled",
                field=type_field,
                params={"device_type": device_type.id, "name": device_type.name},
            )
        inventory = await self._inventory(device_type, type_field)
        offering = [node for node in inventory.nodes if node.allocatable > 0]
        if not offering:
            raise ValidationFailed(
                code="accelerator.not_offered",
                field=type_field,
                params={"resource_key": device_type.resource_key, "name": device_type.name},
            )
        most = max(node.allocatable for node in offering)
        if request.count > most:
            raise ValidationFailed(
                code="accelerator.too_many",
                field=f"{field}.count",
                most=most,
                params={
                    "count": request.count,
                    "resource_key": device_type.resource_key,
                    "name": device_type.name,
                    "figures": _figures({node.node: node.allocatable for node in offering}),
                },
            )
        return Placement(device_type.id, device_type.resource_key, request.count)

    async def quota_reason(self, project: str, placement: Placement) -> Message | None:
        """Why a pod asking for `placement` is refused by a quota of the project; None when the
        quotas have room (or none is known)."""
        if self._quotas is None:
            return None
        return await self.named(
            await self._quotas.shortage(project, placement.resource_key, placement.count), placement
        )

    async def named(self, reason: Message | None, placement: Placement) -> Message | None:
        """`reason` naming `placement`'s device type by its name wherever Kubernetes' words behind it
        named the type's resource key (a quota's refusal, a scheduler's "Insufficient", a kubelet's
        "OutOf"); any other reason as it is."""
        key = placement.resource_key
        if reason is None or not key or not names_resource(reason, key):
            return reason
        name = await self.type_name(placement.device_type)
        return reason if name is None else renamed(reason, key, name)

    async def type_name(self, device_type: str) -> str | None:
        """The name of the type with that id, as a person knows it; None when it is not in the catalog."""
        found = await self._catalog.find(device_type) if device_type else None
        return None if found is None else found.name

    async def pending_reason(self, placement: Placement) -> Message:
        """Why a pod asking for `placement` is not scheduled, counted in devices and naming the type:
        "no node has 5 free HyperAccel LPU: lpu-node-1 has 4; lpu-node-2 has 2"."""
        device_type = await self._catalog.find(placement.device_type)
        if device_type is None:
            return Message("workload.pending.device_type_gone", {"device_type": placement.device_type})
        # The resource key stays a param, for a client; the sentence names the type.
        said = {"resource_key": placement.resource_key, "name": device_type.name}
        inventory = await self._inventory(device_type, "accelerator.device_type")
        nodes = [node for node in inventory.nodes if node.capacity or node.allocatable]
        if not nodes:
            return Message("workload.pending.no_node_has_key", said)
        free = {node.node: max(node.allocatable - node.allocated, 0) for node in nodes}
        fitting = [node for node, count in free.items() if count >= placement.count]
        if not fitting:
            return Message(
                "workload.pending.no_free", {"count": placement.count, **said, "figures": _figures(free)}
            )
        return Message(
            "workload.pending.ruled_out",
            {"nodes": ", ".join(fitting), "fitting": len(fitting), "count": placement.count, **said},
        )

    async def _inventory(self, device_type: DeviceType, field: str) -> Inventory:
        try:
            fetcher = self._fetchers.for_type(device_type)
        except UnknownFetcher as exc:
            raise ValidationFailed(
                code="accelerator.uncountable",
                field=field,
                params={"device_type": device_type.id, "name": device_type.name, "reason": said(exc)},
            ) from None
        return fetcher.inventory(device_type, await self._reader.state())


def said(exc: NufiError) -> object:
    """What another domain error says, as a param of ours: its message, worded in the reader's
    language, or its own sentence while its module still words itself."""
    return Message(exc.code, exc.params) if exc.code else exc.detail


def _figures(counts: dict[str, int]) -> list[Message]:
    return [Message("accelerator.node_has", {"node": node, "count": count}) for node, count in counts.items()]


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
