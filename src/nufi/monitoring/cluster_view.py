"""What the cluster says about device types: inventory per node and the pods holding devices.

One pod list serves the attribution of every type, and one node list the inventory of every type
whose fetcher uses the generic inventory; a fetcher with an inventory of its own is asked for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nufi.cluster import ClusterGateway
from nufi.cluster.inventory import BoundPod, NodeResources, list_bound_pods, list_nodes
from nufi.devices.capacity import Inventory, build_inventory
from nufi.devices.fetcher import DeviceFetcher, GenericFetcher
from nufi.devices.spec import DeviceType
from nufi.monitoring.attribution import PodHolding, holdings_by_node


@dataclass(frozen=True)
class ClusterView:
    """One device type as the cluster sees it."""

    inventory: Inventory
    holdings: Mapping[str, tuple[PodHolding, ...]]


def uses_generic_inventory(fetcher: DeviceFetcher) -> bool:
    return getattr(type(fetcher), "inventory", None) is GenericFetcher.inventory


async def read_cluster(
    cluster: ClusterGateway, types: Sequence[tuple[DeviceType, DeviceFetcher]]
) -> dict[str, ClusterView]:
    """A view per device type id; raises DependencyUnavailable when Kubernetes cannot be read."""
    own = [(t, f) for t, f in types if not uses_generic_inventory(f)]
    generic = [t for t, f in types if uses_generic_inventory(f)]

    async def nodes_if_needed() -> list[NodeResources]:
        return await list_nodes(cluster) if generic else []

    (pods, nodes), inventories = await asyncio.gather(
        asyncio.gather(list_bound_pods(cluster), nodes_if_needed()),
        asyncio.gather(*(fetcher.inventory(t, cluster) for t, fetcher in own)),
    )
    views: dict[str, ClusterView] = {}
    for device_type in generic:
        views[device_type.id] = _view(
            device_type, build_inventory(device_type.resource_key, nodes, pods), pods
        )
    for (device_type, _), inventory in zip(own, inventories, strict=True):
        views[device_type.id] = _view(device_type, inventory, pods)
    return views


def _view(device_type: DeviceType, inventory: Inventory, pods: Sequence[BoundPod]) -> ClusterView:
    return ClusterView(inventory, holdings_by_node(pods, device_type.resource_key))
