"""One read of the cluster, shared by everything that serves a request.

Every device type's inventory and pod attribution is computed from the same node list and pod list,
so a request costs one paginated list of each whatever the number of device types and fetchers.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.inventory import PAGE_SIZE, BoundPod, NodeResources, list_bound_pods, list_nodes


@dataclass(frozen=True)
class ClusterState:
    """Every node with its capacity and allocatable, and every bound, unfinished pod."""

    nodes: tuple[NodeResources, ...]
    pods: tuple[BoundPod, ...]


async def read_cluster_state(cluster: ClusterGateway, *, page_size: int = PAGE_SIZE) -> ClusterState:
    """Nodes and pods, listed at the same time; raises DependencyUnavailable when either list fails."""
    nodes, pods = await asyncio.gather(
        list_nodes(cluster, page_size=page_size), list_bound_pods(cluster, page_size=page_size)
    )
    return ClusterState(tuple(nodes), tuple(pods))
