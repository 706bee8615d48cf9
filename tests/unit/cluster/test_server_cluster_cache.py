"""The cluster cache's handling of watch events and when it serves, without an API server."""

from __future__ import annotations

import time

from nufi.cluster import ClusterGateway
from nufi.cluster.cache import FALLING_BACK, CacheSettings, ClusterCache
from nufi.cluster.connection import KubeSource


def _cache(max_outage: float = 30.0) -> ClusterCache:
    source = KubeSource(kind="in-cluster")
    return ClusterCache(ClusterGateway(source), CacheSettings(max_outage_seconds=max_outage))


def _node(name: str, version: str, gpus: str = "1", **labels: str) -> dict[str, object]:
    return {
        "metadata": {"name": name, "resourceVersion": version, "labels": labels},
        "status": {"capacity": {"example.com/gpu": gpus}, "allocatable": {"example.com/gpu": gpus}},
    }


def _pod(name: str, version: str, phase: str) -> dict[str, object]:
    return {
        "metadata": {"namespace": "ns", "name": name, "resourceVersion": version},
        "spec": {
            "nodeName": "n1",
            "containers": [{"resources": {"limits": {"example.com/gpu": "2"}}}],
        },
        "status": {"phase": phase},
    }


def test_events_update_the_store_and_the_version_to_resume_from() -> None:
    nodes = _cache().nodes
    nodes.apply({"type": "ADDED", "object": _node("n1", "5", pool="blue")})
    nodes.apply({"type": "MODIFIED", "object": _node("n1", "6", gpus="4", pool="green")})
    (node,) = nodes.items()
    assert (node.capacity_of("example.com/gpu"), node.labels["pool"]) == (4, "green")
    nodes.apply({"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "9"}}})
    assert nodes.resource_version == "9"
    assert nodes.items() == (node,)
    nodes.apply({"type": "DELETED", "object": _node("n1", "10")})
    assert nodes.items() == ()
    assert nodes.resource_version == "10"


def test_a_pod_that_finishes_leaves_the_store() -> None:
    pods = _cache().pods
    pods.apply({"type": "ADDED", "object": _pod("p", "1", "Running")})
    assert [pod.extended_requests for pod in pods.items()] == [{"example.com/gpu": 2}]
    pods.apply({"type": "MODIFIED", "object": _pod("p", "2", "Succeeded")})
    assert pods.items() == ()


async def test_serving_needs_both_kinds_listed_and_no_long_outage() -> None:
    cache = _cache(max_outage=5.0)
    assert cache.why_not_serving() == "the cache is not running"
    # Started without an API server to reach: the watches keep failing, so only the test lists.
    cache.start()
    try:
        _serving_checks(cache)
    finally:
        await cache.close()
    assert cache.why_not_serving() == "the cache is not running"


def _serving_checks(cache: ClusterCache) -> None:
    assert "nodes not listed yet" in (cache.why_not_serving() or "")
    for reflector in (cache.nodes, cache.pods):
        reflector.synced = True
        reflector.broken_since = None
    assert cache.serving
    cache.pods.broken_since = time.monotonic() - 1
    cache.pods.broken_reason = "connection refused"
    assert cache.serving  # a short outage is served through
    cache.pods.broken_since = time.monotonic() - 10
    assert "pods has been broken for more than 5 s (connection refused)" in (cache.why_not_serving() or "")
    assert cache.state() is None and cache.node_list() is None


async def test_readiness_says_falling_back_without_being_unready() -> None:
    status = await _cache().check()
    assert (status.ok, status.configured) == (True, True)
    assert status.detail.startswith(FALLING_BACK)


async def test_without_kubernetes_the_cache_is_not_configured() -> None:
    status = await ClusterCache(ClusterGateway(None)).check()
    assert (status.ok, status.configured) == (False, False)
