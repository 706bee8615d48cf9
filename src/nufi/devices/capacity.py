"""How many devices of a type the cluster has, can give out, and has given out, per node."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nufi.cluster.inventory import BoundPod, NodeResources


@dataclass(frozen=True)
class NodeInventory:
    """One node's devices of one resource key: `allocated` sums the requests of the live pods bound to it."""

    node: str
    capacity: int
    allocatable: int
    allocated: int


@dataclass(frozen=True)
class Inventory:
    """The nodes that advertise a resource key (or run pods holding it), sorted by name."""

    resource_key: str
    nodes: tuple[NodeInventory, ...]

    @property
    def nodes_with_devices(self) -> int:
        """Nodes that have some of the resource (a node listed only for a pod still bound to it has none)."""
        return sum(1 for node in self.nodes if node.capacity)

    @property
    def capacity(self) -> int:
        return sum(node.capacity for node in self.nodes)

    @property
    def allocatable(self) -> int:
        return sum(node.allocatable for node in self.nodes)

    @property
    def allocated(self) -> int:
        return sum(node.allocated for node in self.nodes)


def build_inventory(resource_key: str, nodes: Iterable[NodeResources], pods: Iterable[BoundPod]) -> Inventory:
    """Join the node list and the bound-pod list for one resource key, in memory."""
    allocated: dict[str, int] = {}
    for pod in pods:
        amount = pod.extended_requests.get(resource_key, 0)
        if amount:
            allocated[pod.node] = allocated.get(pod.node, 0) + amount
    rows = []
    for node in nodes:
        capacity = node.capacity_of(resource_key)
        allocatable = node.allocatable_of(resource_key)
        held = allocated.pop(node.name, 0)
        if capacity is None and allocatable is None and not held:
            continue
        rows.append(NodeInventory(node.name, capacity or 0, allocatable or 0, held))
    # Pods may still be bound to a node that has just been deleted; their devices are gone with it.
    return Inventory(resource_key, tuple(sorted(rows, key=lambda row: row.node)))
