"""The gateway package's modules import one another in one direction: the API client at the bottom,
the road to Kubernetes over it, inventories and the cache over the road, the reader on top."""

from __future__ import annotations

import grimp

from support.import_graph import circles


def test_no_module_of_the_cluster_package_imports_one_that_imports_it_back() -> None:
    assert circles("nufi.cluster") == []


def test_the_gateway_knows_nothing_of_the_cache_or_the_inventory() -> None:
    graph = grimp.build_graph("nufi", cache_dir=None)
    for above in ("nufi.cluster.cache", "nufi.cluster.inventory", "nufi.cluster.reader"):
        assert not graph.chain_exists("nufi.cluster.gateway", above), above
