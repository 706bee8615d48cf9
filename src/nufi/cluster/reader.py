"""How the domains read the cluster's nodes and pods: `ClusterReader`.

`services.py` builds one per process, over the gateway and the watch-fed cache (`cache.py`) when there
is one, and hands it to everything that reads nodes and pods: monitoring's evaluations, the catalog's
inventories, the wizard's resource-key check, the accelerators workloads ask for. A read is the cache's
state while the cache is serving, and costs no request; otherwise (no cache, not synced yet, a watch
broken for too long) it is one paginated list of each kind, bounded by NUFI_KUBE_TIMEOUT_SECONDS.
A reader built without a cache always lists.
"""

from __future__ import annotations

from nufi.cluster.cache import ClusterCache
from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.inventory import PAGE_SIZE, NodeResources, list_nodes
from nufi.cluster.state import ClusterState, list_cluster_state


class ClusterReader:
    """Nodes and pods, from `cache` while it serves, else listed through `gateway`."""

    def __init__(
        self, gateway: ClusterGateway, cache: ClusterCache | None = None, *, page_size: int = PAGE_SIZE
    ) -> None:
        self._gateway = gateway
        self._cache = cache
        self._page_size = page_size

    @property
    def gateway(self) -> ClusterGateway:
        return self._gateway

    @property
    def cache(self) -> ClusterCache | None:
        return self._cache

    @property
    def configured(self) -> bool:
        return self._gateway.configured

    async def state(self) -> ClusterState:
        """Every node and every bound, unfinished pod: from the cache when it is serving, else both
        listed at the same time. Raises DependencyUnavailable when a list fails or the two together
        take longer than NUFI_KUBE_TIMEOUT_SECONDS."""
        cached = None if self._cache is None else self._cache.state()
        if cached is not None:
            return ClusterState(*cached)
        return await list_cluster_state(self._gateway, page_size=self._page_size)

    async def nodes(self, *, page_size: int | None = None) -> list[NodeResources]:
        """Every node: from the cache when it is serving, else one paginated list (in pages of
        `page_size` when given)."""
        cached = None if self._cache is None else self._cache.node_list()
        if cached is not None:
            return list(cached)
        return await list_nodes(self._gateway, page_size=page_size or self._page_size)
