"""The watch-fed cluster cache against the dev cluster: changes within a second, 410 Gone, a restarted
API server, and direct lists until the cache is synced."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes_asyncio.client import ApiClient, CoreV1Api
from pydantic import SecretStr

from nufi.cluster import ClusterGateway, ClusterReader, inventory
from nufi.cluster import cache as cache_module
from nufi.cluster.cache import FALLING_BACK, SERVING, CacheSettings, ClusterCache
from nufi.config import Settings
from nufi.devices.checks import check_resource_key
from nufi.services import build_services
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster, prepared_cluster, short_state_dir
from support.polling import eventually

GPU = "example.com/gpu"
FAST = CacheSettings(watch_seconds=30, backoff_initial_seconds=0.05, backoff_max_seconds=0.3)


@pytest.fixture(scope="module")
def devcluster() -> Iterator[DevClusterProcess]:
    # Not the run's cluster: a short watch history, so a stale resourceVersion is answered with
    # 410 Gone, and no simulation, so the only nodes are the ones these tests add and delete.
    with dev_cluster(None, prefix="cache-", simulation=False, watch_history=20, start_timeout=60) as cluster:
        yield cluster


@pytest.fixture(scope="module")
async def gateway(devcluster: DevClusterProcess) -> AsyncIterator[ClusterGateway]:
    gateway = ClusterGateway.from_settings(Settings(kubeconfig=devcluster.kubeconfig), environ={})
    try:
        yield gateway
    finally:
        await gateway.close()


@pytest.fixture
async def core(gateway: ClusterGateway) -> CoreV1Api:
    client: ApiClient = await gateway.api_client()
    return CoreV1Api(client)


@pytest.fixture
async def cache(gateway: ClusterGateway) -> AsyncIterator[ClusterCache]:
    cache = ClusterCache(gateway, FAST)
    cache.start()
    try:
        await eventually(lambda: _serving(cache), within=10)
        yield cache
    finally:
        await cache.close()


def _serving(cache: ClusterCache) -> None:
    assert cache.serving, cache.why_not_serving()


def _node(cache: ClusterCache, name: str) -> Any:
    return next((node for node in cache.nodes.items() if node.name == name), None)


async def create_node(
    core: CoreV1Api, name: str, gpus: int = 0, labels: dict[str, str] | None = None
) -> None:
    await core.create_node({"metadata": {"name": name, "labels": labels or {}}})
    await set_capacity(core, name, gpus)


async def set_capacity(core: CoreV1Api, name: str, gpus: int) -> None:
    quantities = {"cpu": "8", GPU: str(gpus)}
    await core.patch_node_status(name, {"status": {"capacity": quantities, "allocatable": quantities}})


async def test_added_relabelled_resized_and_deleted_nodes_are_seen_within_a_second(
    cache: ClusterCache, core: CoreV1Api
) -> None:
    await create_node(core, "cache-a", gpus=2, labels={"pool": "blue"})
    seen = await eventually(lambda: _assert_node(cache, "cache-a", GPU, "2"), within=1.0)
    assert seen.labels["pool"] == "blue"

    await core.patch_node("cache-a", {"metadata": {"labels": {"pool": "green"}}})
    await eventually(lambda: _assert_label(cache, "cache-a", "pool", "green"), within=1.0)

    await set_capacity(core, "cache-a", 6)
    await eventually(lambda: _assert_node(cache, "cache-a", GPU, "6"), within=1.0)

    await core.delete_node("cache-a")
    await eventually(lambda: _assert_absent(cache, "cache-a"), within=1.0)


async def test_reads_are_served_from_the_cache_once_it_is_synced(
    cache: ClusterCache, gateway: ClusterGateway, core: CoreV1Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create_node(core, "cache-served", gpus=1)
    await eventually(lambda: _assert_node(cache, "cache-served", GPU, "1"), within=1.0)

    def no_list(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("listed although the cache is serving")

    monkeypatch.setattr("nufi.cluster.reader.list_nodes", no_list)
    monkeypatch.setattr("nufi.cluster.reader.list_cluster_state", no_list)
    reader = ClusterReader(gateway, cache)
    state = await reader.state()
    assert "cache-served" in {node.name for node in state.nodes}
    assert "cache-served" in {node.name for node in await reader.nodes()}
    status = await cache.check()
    assert (status.ok, status.configured, status.detail) == (True, True, SERVING)
    await core.delete_node("cache-served")


async def test_a_watch_answered_with_410_gone_lists_again(
    gateway: ClusterGateway, core: CoreV1Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Enough writes that resourceVersion 1 has left the dev cluster's watch history.
    for index in range(25):
        await core.create_namespace({"metadata": {"name": f"gone-{index}"}})
    original = cache_module._Reflector._list
    lists: list[str] = []

    async def stale_first_list(self: Any) -> None:
        await original(self)
        lists.append(self.plural)
        if self.plural == "nodes" and lists.count("nodes") == 1:
            self.resource_version = "1"  # as if the watch resumed long after its last event

    monkeypatch.setattr(cache_module._Reflector, "_list", stale_first_list)
    cache = ClusterCache(gateway, FAST)
    cache.start()
    try:
        await eventually(lambda: _assert_lists(cache, 2), within=5)
        await create_node(core, "cache-after-gone", gpus=3)
        await eventually(lambda: _assert_node(cache, "cache-after-gone", GPU, "3"), within=1.0)
    finally:
        await cache.close()
        await core.delete_node("cache-after-gone")


async def test_the_cache_relists_on_its_resync_period(gateway: ClusterGateway, core: CoreV1Api) -> None:
    cache = ClusterCache(gateway, CacheSettings(resync_seconds=1.0, backoff_max_seconds=0.3))
    cache.start()
    try:
        await eventually(lambda: _assert_lists(cache, 3), within=10)
        await create_node(core, "cache-resynced", gpus=5)
        await eventually(lambda: _assert_node(cache, "cache-resynced", GPU, "5"), within=1.0)
        _serving(cache)
    finally:
        await cache.close()
        await core.delete_node("cache-resynced")


async def test_until_synced_reads_list_directly_and_readiness_says_so(
    gateway: ClusterGateway, core: CoreV1Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create_node(core, "cache-direct", gpus=1)
    release = asyncio.Event()
    original = inventory.list_raw

    async def held(*args: Any, **kwargs: Any) -> Any:
        await release.wait()
        return await original(*args, **kwargs)

    monkeypatch.setattr("nufi.cluster.cache.list_raw", held)
    cache = ClusterCache(gateway, FAST)
    cache.start()
    try:
        state = await ClusterReader(gateway, cache).state()
        assert "cache-direct" in {node.name for node in state.nodes}
        assert cache.state() is None
        status = await cache.check()
        assert status.ok and status.configured
        assert status.detail.startswith(f"{FALLING_BACK}: nodes not listed yet")
        release.set()
        await eventually(lambda: _serving(cache), within=5)
        assert _node(cache, "cache-direct") is not None
    finally:
        release.set()
        await cache.close()
        await core.delete_node("cache-direct")


async def test_a_restarted_api_server_is_recovered_from_without_restarting_nufi() -> None:
    # A cluster of the test's own: it stops its API server and starts another on the same port.
    state = short_state_dir("cache-restart-")
    first = prepared_cluster(state, None, simulation=False)
    await asyncio.to_thread(first.start, 60)
    gateway = ClusterGateway.from_settings(Settings(kubeconfig=first.kubeconfig), environ={})
    cache = ClusterCache(gateway, CacheSettings(max_outage_seconds=0.5, backoff_max_seconds=0.3))
    second: DevClusterProcess | None = None
    try:
        core = CoreV1Api(await gateway.api_client())
        cache.start()
        await eventually(lambda: _serving(cache), within=10)
        await create_node(core, "before-restart", gpus=1)
        await eventually(lambda: _assert_node(cache, "before-restart", GPU, "1"), within=1.0)

        await asyncio.to_thread(first.stop)
        await eventually(lambda: _assert_falling_back(cache), within=10)
        # The same ports and state directory: a fresh API server, whose store no longer has the node.
        second = prepared_cluster(state, None, simulation=False, port=first.port, tls_port=first.tls_port)
        await asyncio.to_thread(second.start, 60)
        await create_node(core, "after-restart", gpus=4)
        await eventually(lambda: _assert_node(cache, "after-restart", GPU, "4"), within=10)
        assert _node(cache, "before-restart") is None
        # The pods' reflector may still be waiting out its back-off.
        await eventually(lambda: _serving(cache), within=10)
    finally:
        await cache.close()
        await gateway.close()
        first.stop()
        if second is not None:
            second.stop()
        shutil.rmtree(state, ignore_errors=True)


async def test_services_start_the_cache_and_check_resource_key_reads_from_it(
    devcluster: DevClusterProcess, core: CoreV1Api, tmp_path: Path
) -> None:
    settings = Settings(
        kubeconfig=devcluster.kubeconfig,
        database_url=SecretStr(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"),
    )
    async with build_services(settings) as services:
        cache = services.cluster_cache
        assert cache is not None and services.cluster_reader.cache is cache
        await eventually(lambda: _serving(cache), within=10)
        report = await services.readiness.run()
        entry = {d.name: d for d in report.dependencies}["cluster-cache"]
        assert (report.ready, entry.ok, entry.detail) == (True, True, SERVING)
        await create_node(core, "cache-wired", gpus=2)
        try:
            await eventually(lambda: _assert_node(cache, "cache-wired", GPU, "2"), within=1.0)
            result = await check_resource_key(GPU, services.cluster_reader)
            assert [(n.name, n.capacity) for n in result.nodes if n.name == "cache-wired"] == [
                ("cache-wired", 2)
            ]
        finally:
            await core.delete_node("cache-wired")
    assert cache.why_not_serving() == "the cache is not running"


async def test_the_cache_can_be_turned_off(devcluster: DevClusterProcess, tmp_path: Path) -> None:
    settings = Settings(
        kubeconfig=devcluster.kubeconfig,
        database_url=SecretStr(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"),
        cluster_cache_enabled=False,
    )
    async with build_services(settings) as services:
        assert services.cluster_cache is None and services.cluster_reader.cache is None
        assert "cluster-cache" not in services.readiness.names


def _assert_node(cache: ClusterCache, name: str, resource: str, amount: str) -> Any:
    node = _node(cache, name)
    assert node is not None, f"{name} not in the cache"
    assert node.capacity.get(resource) == amount, node.capacity
    return node


def _assert_label(cache: ClusterCache, name: str, label: str, value: str) -> None:
    node = _node(cache, name)
    assert node is not None and node.labels.get(label) == value, node


def _assert_absent(cache: ClusterCache, name: str) -> None:
    assert _node(cache, name) is None


def _assert_lists(cache: ClusterCache, at_least: int) -> None:
    assert cache.nodes.lists >= at_least, cache.nodes.lists


def _assert_falling_back(cache: ClusterCache) -> None:
    why = cache.why_not_serving()
    assert why is not None and "broken" in why, why
