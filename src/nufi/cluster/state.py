"""One read of the cluster, shared by everything that serves a request.

Every device type's inventory and pod attribution is computed from the same node list and pod list,
whatever the number of device types and fetchers. `list_cluster_state` lists both directly, at the
same time, within the gateway's request timeout (NUFI_KUBE_TIMEOUT_SECONDS); `reader.ClusterReader`
serves the same state from the watch-fed cache while it can.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from nufi.cluster.gateway import KUBERNETES, ClusterGateway
from nufi.cluster.inventory import (
    PAGE_SIZE,
    BoundPod,
    NodeResources,
    list_bound_pods,
    list_nodes,
)
from nufi.errors import DependencyUnavailable


@dataclass(frozen=True)
class ClusterState:
    """Every node with its capacity and allocatable, and every bound, unfinished pod."""

    nodes: tuple[NodeResources, ...]
    pods: tuple[BoundPod, ...]


async def list_cluster_state(cluster: ClusterGateway, *, page_size: int = PAGE_SIZE) -> ClusterState:
    """Nodes and pods listed from the API server, never from the cache."""
    timeout = cluster.request_timeout_seconds
    try:
        async with asyncio.timeout(timeout), asyncio.TaskGroup() as group:
            # A task group: when one list fails, the other is cancelled rather than left running.
            nodes = group.create_task(list_nodes(cluster, page_size=page_size))
            pods = group.create_task(list_bound_pods(cluster, page_size=page_size))
    except TimeoutError as exc:
        if cluster.api_url:
            raise DependencyUnavailable(
                code="kube.lists_timed_out_at",
                params={"host": cluster.api_url, "timeout": timeout},
                dependency=KUBERNETES,
            ) from exc
        raise DependencyUnavailable(
            code="kube.lists_timed_out", params={"timeout": timeout}, dependency=KUBERNETES
        ) from exc
    except ExceptionGroup as failures:
        raise _first(failures) from None
    return ClusterState(tuple(nodes.result()), tuple(pods.result()))


def _first(group: BaseExceptionGroup[Exception]) -> Exception:
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first
