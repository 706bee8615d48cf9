"""1. Cold snapshots against the floor: a fresh `MonitoringService` per read, alternating with the
preset's bare expressions sent at once with httpx."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs

import httpx

from bench.common.printing import line, ms
from bench.common.timing import timed, until_serving
from bench.monitoring_snapshot.world import PRINCIPAL, TYPE_ID, World
from nufi.api.schemas.monitoring import SnapshotPageView
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.cluster.cache import ClusterCache
from nufi.db import Database
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.devices.presets import official_preset
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshots.paging import page_snapshot, parse_page_query
from nufi.monitoring.snapshots.snapshot import Snapshot
from nufi.prom import PrometheusGateway

COLD_RUNS = 7
# A cold snapshot from a fresh service whose cluster state is read through the gateway given.
ColdSnapshot = Callable[[ClusterGateway], Awaitable[Snapshot]]


class RecordingTransport(httpx.AsyncHTTPTransport):
    """Keeps the PromQL of the instant queries it carries (until `recording` is switched off)."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []
        self.recording = True

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.recording and request.url.path == "/api/v1/query":
            form = parse_qs((await request.aread()).decode()) if request.method == "POST" else {}
            query = request.url.params.get("query") or form.get("query", [""])[0]
            self.queries.append(query)
        return await super().handle_async_request(request)


async def raw_queries(client: httpx.AsyncClient, queries: list[str]) -> int:
    """Send `queries` at once, decode every answer; returns the number of samples."""

    async def one(promql: str) -> int:
        response = await client.post("/api/v1/query", data={"query": promql})
        response.raise_for_status()
        return len(response.json()["data"]["result"])

    return sum(await asyncio.gather(*(one(q) for q in queries)))


@dataclass
class ColdFigures:
    bare: list[str]
    reduced: list[str]
    # Seconds per run: NuFi's cold snapshot (cluster from the cache), the floor, the reduced queries
    # alone, the cold snapshot with the cluster listed directly.
    nufi: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    alone: list[float] = field(default_factory=list)
    listed: list[float] = field(default_factory=list)
    # The whole snapshot as the HTTP body: seconds to build it, and its size.
    serialize: float = 0.0
    body_bytes: int = 0


async def cold(world: World, database: Database, prometheus: httpx.AsyncClient) -> None:
    settings = world.settings
    recorder = RecordingTransport()
    gateway = PrometheusGateway(world.prometheus.url, timeout_seconds=60, transport=recorder)
    direct = ClusterGateway.from_settings(settings, environ={})
    cached = ClusterGateway.from_settings(settings, environ={})
    cache = ClusterCache(cached)
    cache.start()
    fetchers = FetcherRegistry.with_plugins()
    catalog = DeviceCatalog(database, ClusterReader(direct), gateway, fetchers)
    monitoring_settings = MonitoringSettings.from_settings(settings)

    async def snapshot(cluster: ClusterGateway) -> Snapshot:
        reader = ClusterReader(cluster, cache if cluster is cached else None)
        service = MonitoringService(catalog, fetchers, reader, gateway, monitoring_settings, background=False)
        try:
            return await service.snapshot(PRINCIPAL, TYPE_ID)
        finally:
            await service.close()

    try:
        await until_serving(cache)
        figures = await cold_runs(snapshot, recorder, prometheus, direct, cached)
    finally:
        await cache.close()
        await gateway.close()
        await direct.close()
        await cached.close()
    print_cold(figures)


async def cold_runs(
    snapshot: ColdSnapshot,
    recorder: RecordingTransport,
    prometheus: httpx.AsyncClient,
    direct: ClusterGateway,
    cached: ClusterGateway,
) -> ColdFigures:
    """A warm-up that records the PromQL NuFi sends, then `COLD_RUNS` alternating runs."""
    preset = official_preset(TYPE_ID)
    assert preset is not None
    bare = list(preset.metrics.queries().values())
    first = await snapshot(cached)
    figures = ColdFigures(bare, list(recorder.queries))
    recorder.recording = False
    await raw_queries(prometheus, bare)
    await raw_queries(prometheus, figures.reduced)
    await snapshot(direct)
    print(
        f"\nfirst snapshot: {first.summary.nodes} nodes, {first.summary.devices} devices, "
        f"{len(first.stale)} stale, {len(first.errors)} errors; {len(figures.reduced)} queries "
        f"({len(bare)} bare expressions)"
    )
    for _ in range(COLD_RUNS):
        figures.nufi.append(await timed(lambda: snapshot(cached)))
        figures.floor.append(await timed(lambda: raw_queries(prometheus, bare)))
        figures.alone.append(await timed(lambda: raw_queries(prometheus, figures.reduced)))
        figures.listed.append(await timed(lambda: snapshot(direct)))
    # The page every HTTP reader of the whole snapshot gets, built and serialized once.
    whole = parse_page_query(node=None, limit=None, continue_token=None, sort=None, order=None)
    started = time.perf_counter()
    body = SnapshotPageView.of_page(page_snapshot(first, whole)).model_dump_json()
    figures.serialize = time.perf_counter() - started
    figures.body_bytes = len(body)
    return figures


def print_cold(figures: ColdFigures) -> None:
    median_nufi, median_floor = statistics.median(figures.nufi), statistics.median(figures.floor)
    print(f"\n1. cold snapshot against the floor (median of {COLD_RUNS} alternating runs)")
    line("NuFi: cold snapshot, fresh service (cluster from the watch-fed cache)", ms(median_nufi))
    line(f"floor: the {len(figures.bare)} bare expressions at once via httpx, JSON-decoded", ms(median_floor))
    line("ratio NuFi / floor (goal <= 1.3x)", f"{median_nufi / median_floor:8.2f}x")
    line(
        f"for reference: the {len(figures.reduced)} reduced queries alone via httpx",
        ms(statistics.median(figures.alone)),
    )
    line(
        "for reference: cold snapshot, cluster listed directly (no cache)",
        ms(statistics.median(figures.listed)),
    )
    line(
        "for reference: the whole snapshot as the HTTP body, built once",
        f"{ms(figures.serialize)}  ({figures.body_bytes / 1024**2:.1f} MiB)",
    )
