"""check-resource-key on 5,000 nodes against the floor: a raw paginated node list of the same cluster.

Measured twice: listing nodes directly, and served from the watch-fed cluster cache (nufi.cluster.cache);
then the time from a node's capacity change to the check (from the cache) seeing it.

Run: .venv/bin/python -m bench.check_resource_key [--nodes 5000] [--runs 5] [--changes 5]
Prints times and the ratios; never fails on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from kubernetes_asyncio import client

from bench.common.timing import timed, until_serving
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.cluster.cache import CacheSettings, ClusterCache
from nufi.config import Settings
from nufi.devices.checks import check_resource_key
from nufi_sandbox.devcluster.launcher import DevClusterProcess

KEY = "hyperaccel.ai/lpu"
PAGE = 500


def node(i: int) -> dict[str, object]:
    capacity = {"cpu": "64", "memory": "512Gi", "pods": "110"}
    if i % 10 == 0:
        capacity[KEY] = "4"
    return {
        "metadata": {"name": f"node-{i:05d}", "labels": {"kubernetes.io/hostname": f"node-{i:05d}"}},
        "status": {"capacity": capacity, "allocatable": capacity},
    }


async def populate(api: client.ApiClient, count: int) -> None:
    v1 = client.CoreV1Api(api)
    semaphore = asyncio.Semaphore(32)

    async def create(i: int) -> None:
        async with semaphore:
            await v1.create_node(node(i))

    await asyncio.gather(*(create(i) for i in range(count)))


async def typed_list(api: client.ApiClient) -> int:
    """The list as most clients do it: every node decoded into the client's model objects."""
    v1 = client.CoreV1Api(api)
    token, seen = None, 0
    while True:
        page = await v1.list_node(limit=PAGE, _continue=token)
        seen += len(page.items)
        token = page.metadata._continue
        if not token:
            return seen


async def raw_list(api: client.ApiClient) -> int:
    """The floor: the same pages fetched and JSON-decoded, nothing else."""
    v1 = client.CoreV1Api(api)
    token, seen = None, 0
    while True:
        response = await v1.list_node(limit=PAGE, _continue=token, _preload_content=False)
        page = json.loads(await response.read())
        seen += len(page["items"])
        token = page["metadata"].get("continue")
        if not token:
            return seen


async def median_seconds(run: Callable[[], Awaitable[object]], runs: int) -> float:
    await run()  # warm-up: connection pool, first-page caches
    return statistics.median([await timed(run) for _ in range(runs)])


async def change_to_check(api: client.ApiClient, reader: ClusterReader, name: str, amount: int) -> float:
    """Seconds from patching `name`'s capacity of KEY to `amount` until check-resource-key reports it."""
    v1 = client.CoreV1Api(api)
    quantities = {"cpu": "64", "memory": "512Gi", "pods": "110", KEY: str(amount)}
    started = time.perf_counter()
    await v1.patch_node_status(name, {"status": {"capacity": quantities, "allocatable": quantities}})
    while True:
        result = await check_resource_key(KEY, reader, page_size=PAGE)
        if any(n.name == name and n.capacity == amount for n in result.nodes):
            return time.perf_counter() - started
        if time.perf_counter() - started > 30:
            raise RuntimeError(f"check-resource-key did not see {name} at {amount} within 30 s")
        await asyncio.sleep(0.001)


async def main(nodes: int, runs: int, changes: int) -> None:
    state = Path(tempfile.mkdtemp(prefix="bench-rk-", dir="/tmp"))
    cluster = DevClusterProcess(state, simulation=False).start()
    gateway = ClusterGateway.from_settings(Settings(kubeconfig=cluster.kubeconfig))
    try:
        api = await gateway.api_client()
        print(f"creating {nodes} nodes …", flush=True)
        await populate(api, nodes)
        floor = await median_seconds(lambda: raw_list(api), runs)
        typed = await median_seconds(lambda: typed_list(api), runs)
        result = await check_resource_key(KEY, gateway, page_size=PAGE)
        nufi = await median_seconds(lambda: check_resource_key(KEY, gateway, page_size=PAGE), runs)
        print(f"nodes: {nodes}, advertising {KEY}: {len(result.nodes)}")
        print(f"raw paginated node list, JSON only (floor): {floor * 1000:8.1f} ms")
        print(f"same list decoded into client models:       {typed * 1000:8.1f} ms")
        print(f"NuFi check-resource-key, direct list:       {nufi * 1000:8.1f} ms")
        print(f"ratio NuFi direct / floor: {nufi / floor:.2f}x")

        cache = ClusterCache(gateway, CacheSettings.from_settings(Settings()))
        reader = ClusterReader(gateway, cache)
        cache.start()
        try:
            synced = time.perf_counter()
            await until_serving(cache, poll_seconds=0.01)
            print(
                f"cluster cache synced (list + watch) in:     {(time.perf_counter() - synced) * 1000:8.1f} ms"
            )
            cached = await median_seconds(lambda: check_resource_key(KEY, reader, page_size=PAGE), runs)
            print(f"NuFi check-resource-key, from the cache:    {cached * 1000:8.1f} ms")
            print(f"ratio NuFi cached / floor: {cached / floor:.4f}x")
            # Nodes that do not advertise KEY yet (i % 10 != 0), so each change is a new node found.
            samples = [
                await change_to_check(api, reader, f"node-{i * 10 + 1:05d}", 2) for i in range(changes)
            ]
            print(
                f"capacity change -> check sees it (median of {changes}): "
                f"{statistics.median(samples) * 1000:8.1f} ms (max {max(samples) * 1000:.1f} ms)"
            )
        finally:
            await cache.close()
    finally:
        await gateway.close()
        cluster.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--changes", type=int, default=5, help="capacity changes timed through the cache")
    args = parser.parse_args()
    asyncio.run(main(args.nodes, args.runs, args.changes))
