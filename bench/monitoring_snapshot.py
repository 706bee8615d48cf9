"""Monitoring snapshots of 1,000 nodes x 8 GPUs: cold, warm, shared, and over a long run.

Monitoring keeps one background refresher per device type in each replica: it evaluates the type once
per refresh interval (a catalog read, one reduced instant query per quantity, the cluster state, the
join) and every reader gets the latest evaluation. This benchmark checks what that design promises,
in one run, against its own world: a Prometheus scraping every 15 s, the mock exporter in its DCGM
profile simulating 1,000 nodes with 8 GPUs each, a dev cluster with the same nodes and a few hundred
pods holding GPUs, and the dev identity provider. It prints, each on one line:

1. Cold snapshot against the floor: a read of the NVIDIA preset from a fresh `MonitoringService`
   (nothing evaluated yet, so the read waits for a full evaluation, the cluster state read from the
   watch-fed cache as the server does), against the floor: the preset's bare expressions
   (`metrics.queries()`, unreduced) sent at once with httpx and JSON-decoded, nothing else. The two
   alternate over several runs, a new service each run; medians and the ratio (goal <= 1.3x). For
   reference: the reduced queries NuFi sends, alone, and the cold snapshot with the cluster listed
   directly instead of from the cache.
2. Warm reads with 1 and with 200 concurrent readers for `--warm-seconds` each, against a running
   service (background loop on): p50/p99 per read and reads/s (goal p99 <= 50 ms); first in process
   (`service.snapshot(...)`), then over HTTP: the app from `nufi.api.create_app` with its lifespan,
   served by uvicorn on 127.0.0.1 in this process, readers using httpx with a bearer token from the
   dev identity provider and asking for the first page (100 nodes) of the snapshot. Readers, server
   and refresher share one event loop, so HTTP latencies include the clients' own work. For reference,
   one HTTP reader asking for the whole snapshot (every node) per request.
3. Prometheus queries per refresh interval in each warm phase: `prometheus_http_requests_total
   {handler="/api/v1/query"}` from Prometheus' own /metrics, summed, before and after the phase,
   divided by the refresh instants the phase spans (goal: the same with 1 and 200 readers, 5 for the
   NVIDIA preset); with NuFi's own count of evaluations (`service.stats()` in process,
   `nufi_monitoring_evaluations_total` from the app's /metrics over HTTP). Only one service exists
   during a phase, and phases start and end clear of an evaluation in flight.
4. RSS soak: this process' VmRSS (server, refresher and readers) after the first minute of 200 HTTP
   readers and after `--soak-seconds` of them; the growth in MiB and %. `--soak-seconds 0` skips it.

It never fails on time. Run: `.venv/bin/python -m bench.monitoring_snapshot [--warm-seconds N]
[--soak-seconds N]` (defaults 30 and 600); startup takes about two minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import re
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs

import httpx
import uvicorn
import yaml
from pydantic import SecretStr

from nufi.api import create_app
from nufi.api.schemas.monitoring import SnapshotPageView
from nufi.auth import Principal
from nufi.cluster import ClusterGateway
from nufi.cluster.cache import ClusterCache
from nufi.config import Settings
from nufi.db import Database
from nufi.devices import FetcherRegistry
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.presets import official_preset
from nufi.logging import configure_logging
from nufi.monitoring import MonitoringService, MonitoringSettings
from nufi.monitoring.paging import page_snapshot, parse_page_query
from nufi.prom import PrometheusGateway
from nufi.services import Services
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob

NODES = 1000
DEVICES_PER_NODE = 8
PODS = 300
SCRAPE_INTERVAL_SECONDS = 15
COLD_RUNS = 7
MANY_READERS = 200
HTTP_PAGE_NODES = 100
# The first RSS reading of the soak is taken after this long.
SOAK_FIRST_SECONDS = 60.0
TOKEN_REFRESH_SECONDS = 60.0
TYPE_ID = "nvidia-gpu"
NODE_NAMES = [f"gpu-{i:04d}" for i in range(NODES)]
PRINCIPAL = Principal(subject="bench", username="bench", roles=frozenset())
QUERY_REQUESTS = re.compile(
    r'^prometheus_http_requests_total\{[^}]*handler="/api/v1/query"[^}]*\}\s+(\S+)', re.M
)
NUFI_EVALUATION_SECONDS = re.compile(
    r'^nufi_monitoring_evaluation_seconds_sum\{device_type="' + TYPE_ID + r'"\}\s+(\S+)', re.M
)
NUFI_SNAPSHOT_HANDLING = re.compile(
    r'^nufi_http_request_duration_seconds_(sum|count)\{[^}]*route="/api/v1/monitoring/\{device_type_id\}"'
    r"[^}]*\}\s+(\S+)",
    re.M,
)
NUFI_EVALUATIONS = re.compile(
    r'^nufi_monitoring_evaluations_total\{device_type="' + TYPE_ID + r'"\}\s+(\S+)', re.M
)


# -- the world -----------------------------------------------------------------------------------------


def start_exporter(work: Path) -> tuple[ManagedProcess, str]:
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--host", "127.0.0.1", "--port", str(port)]
    argv += [
        "--profile",
        "dcgm",
        "--nodes",
        ",".join(NODE_NAMES),
        "--devices-per-node",
        str(DEVICES_PER_NODE),
    ]
    argv += ["--no-pod-resources", "--interval", str(SCRAPE_INTERVAL_SECONDS), "--log-format", "json"]
    process = ManagedProcess("bench-exporter", argv, log_dir=work).start()
    address = f"127.0.0.1:{port}"
    try:
        process.wait_ready(
            lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
            60.0,
            "answering /healthz",
        )
    except BaseException:
        process.stop()
        raise
    return process, address


def start_cluster(work: Path) -> DevClusterProcess:
    nodes = [
        {"name": name, "device_plugins": False, "capacity": {"nvidia.com/gpu": DEVICES_PER_NODE}}
        for name in NODE_NAMES
    ]
    nodes_file = work / "nodes.yaml"
    nodes_file.write_text(yaml.safe_dump({"nodes": nodes}))
    cluster = DevClusterProcess(work / "cluster", nodes_file=nodes_file)
    try:
        cluster.start(timeout=120)
        with httpx.Client(base_url=cluster.url, timeout=10.0) as client:
            for i in range(PODS):
                limits = {"nvidia.com/gpu": str(1 + i % DEVICES_PER_NODE)}
                body = {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"job-{i}"},
                    "spec": {
                        "nodeName": NODE_NAMES[(i * 3) % NODES],
                        "containers": [{"name": "main", "image": "busybox", "resources": {"limits": limits}}],
                    },
                }
                client.post("/api/v1/namespaces/default/pods", json=body).raise_for_status()
    except BaseException:
        cluster.stop()
        raise
    return cluster


async def wait_for_every_device(prometheus: PrometheusServer) -> None:
    expected = NODES * DEVICES_PER_NODE
    deadline = time.monotonic() + 120
    while True:
        found = await prometheus.query("count(DCGM_FI_DEV_POWER_USAGE)")
        if found and int(float(found[0]["value"][1])) == expected:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"Prometheus did not see {expected} GPUs in time: {found}")
        await asyncio.sleep(1)


@dataclass
class World:
    prometheus: PrometheusServer
    cluster: DevClusterProcess
    identity: IdentityProviderProcess
    work: Path
    warm_seconds: float
    soak_seconds: float

    @property
    def settings(self) -> Settings:
        return Settings(
            database_url=SecretStr(f"sqlite+aiosqlite:///{self.work / 'nufi.db'}"),
            prometheus_url=self.prometheus.url,
            prometheus_timeout_seconds=60,
            kubeconfig=self.cluster.kubeconfig,
            oidc_issuer=self.identity.issuer,
            monitoring_scrape_interval_seconds=SCRAPE_INTERVAL_SECONDS,
            log_level="warning",
        )

    @property
    def refresh_seconds(self) -> float:
        return MonitoringSettings.from_settings(self.settings).refresh_seconds


# -- measuring -----------------------------------------------------------------------------------------


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


async def timed(action: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await action()
    return time.perf_counter() - started


@dataclass
class Reads:
    latencies: list[float]
    seconds: float
    failures: int = 0

    @property
    def per_second(self) -> float:
        return len(self.latencies) / self.seconds

    def percentile(self, p: int) -> float:
        if len(self.latencies) < 2:
            return self.latencies[0] if self.latencies else math.nan
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[p - 1]


async def drive(readers: int, seconds: float, read: Callable[[], Awaitable[bool]]) -> Reads:
    """`readers` loops calling `read` back to back for `seconds`; `read` returns False on a failure."""
    latencies: list[float] = []
    failures = 0
    started = time.perf_counter()
    deadline = started + seconds

    async def reader() -> None:
        nonlocal failures
        while time.perf_counter() < deadline:
            begun = time.perf_counter()
            ok = await read()
            latencies.append(time.perf_counter() - begun)
            failures += not ok

    await asyncio.gather(*(reader() for _ in range(readers)))
    return Reads(latencies, time.perf_counter() - started, failures)


async def query_requests(client: httpx.AsyncClient) -> float:
    """Instant queries Prometheus has answered since it started (its own counter)."""
    response = await client.get("/metrics")
    response.raise_for_status()
    return sum(float(value) for value in QUERY_REQUESTS.findall(response.text))


async def settle(interval: float, latest: Callable[[], Awaitable[float]]) -> None:
    """Wait until the evaluation of the last refresh instant has landed, so none is in flight;
    `latest` is the time of the snapshot a read gets now."""
    deadline = time.monotonic() + 2 * interval
    while time.monotonic() < deadline:
        tick = math.floor(time.time() / interval) * interval
        if await latest() >= tick:
            return
        await asyncio.sleep(0.2)


def refresh_instants(start: float, end: float, interval: float) -> int:
    """Aligned refresh instants in (start, end]: the evaluations a phase should see."""
    return math.floor(end / interval) - math.floor(start / interval)


@dataclass
class Phase:
    name: str
    reads: Reads
    queries: float
    instants: int
    evaluations: float
    evaluation_seconds: float
    # This process' RSS when the readers stopped.
    rss_mib: float
    # Over HTTP, the server's own time for the snapshot requests (count, seconds).
    handled: tuple[float, float] | None = None


async def phase(
    name: str,
    readers: int,
    seconds: float,
    read: Callable[[], Awaitable[bool]],
    prometheus: httpx.AsyncClient,
    evaluations: Callable[[], Awaitable[tuple[float, float]]],
    latest: Callable[[], Awaitable[float]],
    interval: float,
    alongside: Callable[[], Coroutine[object, object, None]] | None = None,
    handling: Callable[[], Awaitable[tuple[float, float]]] | None = None,
) -> Phase:
    """`readers` readers for `seconds`, with `alongside` (if any) running from their start;
    `handling` is the server's (count, seconds) of the requests it answered, over HTTP."""
    await settle(interval, latest)
    queries_before, evaluations_before = await query_requests(prometheus), await evaluations()
    handled_before = await handling() if handling is not None else (0.0, 0.0)
    started = time.time()
    beside = asyncio.create_task(alongside()) if alongside is not None else None
    try:
        reads = await drive(readers, seconds, read)
    finally:
        if beside is not None:
            beside.cancel()
            await asyncio.gather(beside, return_exceptions=True)
    rss = rss_mib()
    await settle(interval, latest)
    # Between the two readings of the counter, every refresh instant's evaluation has landed.
    settled = time.time()
    queries = await query_requests(prometheus) - queries_before
    evaluations_after = await evaluations()
    handled = None
    if handling is not None:
        handled_after = await handling()
        handled = (handled_after[0] - handled_before[0], handled_after[1] - handled_before[1])
    evaluated = evaluations_after[0] - evaluations_before[0]
    evaluating = evaluations_after[1] - evaluations_before[1]
    instants = refresh_instants(started, settled, interval)
    result = Phase(name, reads, queries, instants, evaluated, evaluating, rss, handled)
    print_phase(result)
    return result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def line(label: str, value: str) -> None:
    print(f"  {label:<66} {value}", flush=True)


def print_phase(result: Phase) -> None:
    reads = result.reads
    failed = f", {reads.failures} failed" if reads.failures else ""
    line(
        f"{result.name}: p50 / p99 per read",
        f"{ms(reads.percentile(50))} / {ms(reads.percentile(99)).strip()}  "
        f"({reads.per_second:,.0f} reads/s, {len(reads.latencies):,} reads{failed})",
    )
    if result.handled is not None and result.handled[0]:
        count, seconds = result.handled
        line(
            f"{result.name}: inside the app (nufi_http_request_duration_seconds)",
            f"{ms(seconds / count)} mean per request ({count:,.0f} requests)",
        )
    per_interval = result.queries / result.instants if result.instants else math.nan
    taking = f" of {result.evaluation_seconds / result.evaluations:.1f} s each" if result.evaluations else ""
    line(
        f"{result.name}: Prometheus queries per refresh interval",
        f"{per_interval:8.1f}     ({result.queries:.0f} queries, {result.instants} intervals, "
        f"{result.evaluations:.0f} evaluations{taking})",
    )


async def until_serving(cache: ClusterCache) -> None:
    """Wait for the watch-fed cluster cache to serve, as the server's reads are served."""
    deadline = time.monotonic() + 60
    while not cache.serving:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the cluster cache did not sync: {cache.why_not_serving()}")
        await asyncio.sleep(0.1)


def rss_mib() -> float:
    for row in Path("/proc/self/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return math.nan


# -- 1. cold snapshots ---------------------------------------------------------------------------------


async def cold(world: World, database: Database, prometheus: httpx.AsyncClient) -> None:
    settings = world.settings
    recorder = RecordingTransport()
    gateway = PrometheusGateway(world.prometheus.url, timeout_seconds=60, transport=recorder)
    direct = ClusterGateway.from_settings(settings, environ={})
    cached = ClusterGateway.from_settings(settings, environ={})
    cache = ClusterCache(cached)
    cached.attach_cache(cache)
    cache.start()
    fetchers = FetcherRegistry.with_plugins()
    catalog = DeviceCatalog(database, direct, gateway, fetchers)
    monitoring_settings = MonitoringSettings.from_settings(settings)
    preset = official_preset(TYPE_ID)
    assert preset is not None
    bare = list(preset.metrics.queries().values())

    async def snapshot(cluster: ClusterGateway) -> None:
        service = MonitoringService(
            catalog, fetchers, cluster, gateway, monitoring_settings, background=False
        )
        try:
            await service.snapshot(PRINCIPAL, TYPE_ID)
        finally:
            await service.close()

    try:
        await until_serving(cache)
        # A warm-up that also records the PromQL NuFi sends.
        service = MonitoringService(catalog, fetchers, cached, gateway, monitoring_settings, background=False)
        try:
            first = await service.snapshot(PRINCIPAL, TYPE_ID)
        finally:
            await service.close()
        reduced = list(recorder.queries)
        recorder.recording = False
        await raw_queries(prometheus, bare)
        await raw_queries(prometheus, reduced)
        await snapshot(direct)
        print(
            f"\nfirst snapshot: {first.summary.nodes} nodes, {first.summary.devices} devices, "
            f"{len(first.stale)} stale, {len(first.errors)} errors; {len(reduced)} queries "
            f"({len(bare)} bare expressions)"
        )
        nufi, floor, alone, listed = [], [], [], []
        for _ in range(COLD_RUNS):
            nufi.append(await timed(lambda: snapshot(cached)))
            floor.append(await timed(lambda: raw_queries(prometheus, bare)))
            alone.append(await timed(lambda: raw_queries(prometheus, reduced)))
            listed.append(await timed(lambda: snapshot(direct)))
        # The page every HTTP reader of the whole snapshot gets, built and serialized once.
        whole = parse_page_query(node=None, limit=None, continue_token=None, sort=None, order=None)
        started = time.perf_counter()
        body = SnapshotPageView.of_page(page_snapshot(first, whole)).model_dump_json()
        serialize = time.perf_counter() - started
    finally:
        cached.attach_cache(None)
        await cache.close()
        await gateway.close()
        await direct.close()
        await cached.close()

    median_nufi, median_floor = statistics.median(nufi), statistics.median(floor)
    print(f"\n1. cold snapshot against the floor (median of {COLD_RUNS} alternating runs)")
    line("NuFi: cold snapshot, fresh service (cluster from the watch-fed cache)", ms(median_nufi))
    line(f"floor: the {len(bare)} bare expressions at once via httpx, JSON-decoded", ms(median_floor))
    line("ratio NuFi / floor (goal <= 1.3x)", f"{median_nufi / median_floor:8.2f}x")
    line(f"for reference: the {len(reduced)} reduced queries alone via httpx", ms(statistics.median(alone)))
    line("for reference: cold snapshot, cluster listed directly (no cache)", ms(statistics.median(listed)))
    line(
        "for reference: the whole snapshot as the HTTP body, built once",
        f"{ms(serialize)}  ({len(body) / 1024**2:.1f} MiB)",
    )


# -- 2./3. warm reads in process -----------------------------------------------------------------------


async def warm_in_process(world: World, database: Database, prometheus: httpx.AsyncClient) -> None:
    settings = world.settings
    gateway = PrometheusGateway.from_settings(settings)
    cluster = ClusterGateway.from_settings(settings, environ={})
    cache = ClusterCache(cluster)
    cluster.attach_cache(cache)
    cache.start()
    fetchers = FetcherRegistry.with_plugins()
    catalog = DeviceCatalog(database, cluster, gateway, fetchers)
    service = MonitoringService(
        catalog, fetchers, cluster, gateway, MonitoringSettings.from_settings(settings)
    )

    async def read() -> bool:
        await service.snapshot(PRINCIPAL, TYPE_ID)
        return True

    async def evaluations() -> tuple[float, float]:
        stats = [entry.stats for entry in service.stats()]
        return float(sum(s.evaluations for s in stats)), sum(s.evaluation_seconds for s in stats)

    async def latest() -> float:
        return (await service.snapshot(PRINCIPAL, TYPE_ID)).time

    print(f"\n2./3. warm reads in process (service.snapshot), {world.warm_seconds:g} s per phase")
    try:
        await until_serving(cache)
        await read()
        for readers in (1, MANY_READERS):
            name = f"in process, {readers:>3} reader{'s' if readers > 1 else ''}"
            await phase(
                name,
                readers,
                world.warm_seconds,
                read,
                prometheus,
                evaluations,
                latest,
                world.refresh_seconds,
            )
    finally:
        # Closed before the next phase: its refresher must not query Prometheus during it.
        await service.close()
        cluster.attach_cache(None)
        await cache.close()
        await cluster.close()
        await gateway.close()


# -- 2./3./4. warm reads over HTTP, the soak -----------------------------------------------------------


@contextlib.asynccontextmanager
async def uvicorn_serving(app: Any, *, lifespan: Literal["on", "off"]) -> AsyncIterator[str]:
    """`app` served by uvicorn on a free loopback port in this process, until the block ends: its URL."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, lifespan=lifespan, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("uvicorn stopped before it served")
            await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@contextlib.asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[tuple[str, Services]]:
    """The NuFi app with its lifespan, served by uvicorn on a free loopback port in this process."""
    app = create_app(settings)
    async with app.router.lifespan_context(app), uvicorn_serving(app, lifespan="off") as url:
        yield url, app.state.services


async def warm_http(world: World, prometheus: httpx.AsyncClient) -> None:
    token = await asyncio.to_thread(world.identity.password_token, "user", "user")
    limits = httpx.Limits(max_connections=MANY_READERS + 8, max_keepalive_connections=MANY_READERS + 8)
    async with (
        serving(world.settings) as (url, services),
        httpx.AsyncClient(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120.0, limits=limits
        ) as client,
    ):
        page = f"/api/v1/monitoring/{TYPE_ID}"

        async def read_page() -> bool:
            # A connection the server dropped under load is a failed read, counted, not the end.
            try:
                response = await client.get(page, params={"limit": HTTP_PAGE_NODES})
            except httpx.TransportError:
                return False
            return response.status_code == 200

        async def read_whole() -> bool:
            try:
                response = await client.get(page)
            except httpx.TransportError:
                return False
            return response.status_code == 200

        async def evaluations() -> tuple[float, float]:
            response = await client.get("/metrics")
            response.raise_for_status()
            count = sum(float(value) for value in NUFI_EVALUATIONS.findall(response.text))
            return count, sum(float(value) for value in NUFI_EVALUATION_SECONDS.findall(response.text))

        async def handling() -> tuple[float, float]:
            response = await client.get("/metrics")
            response.raise_for_status()
            found = NUFI_SNAPSHOT_HANDLING.findall(response.text)
            count = sum(float(value) for kind, value in found if kind == "count")
            return count, sum(float(value) for kind, value in found if kind == "sum")

        async def latest() -> float:
            response = await client.get(page, params={"limit": 1})
            response.raise_for_status()
            return datetime.fromisoformat(response.json()["time"]).timestamp()

        async def refresh_token() -> None:
            while True:
                await asyncio.sleep(TOKEN_REFRESH_SECONDS)
                fresh = await asyncio.to_thread(world.identity.password_token, "user", "user")
                client.headers["Authorization"] = f"Bearer {fresh}"

        refresher = asyncio.create_task(refresh_token())
        try:
            if services.cluster_cache is not None:
                await until_serving(services.cluster_cache)
            if not await read_page():
                response = await client.get(page, params={"limit": HTTP_PAGE_NODES})
                raise RuntimeError(f"NuFi answered {response.status_code}: {response.text[:500]}")
            interval = world.refresh_seconds
            print(
                f"\n2./3. warm reads over HTTP (GET {page}?limit={HTTP_PAGE_NODES}, bearer token; "
                f"uvicorn and readers in one process), {world.warm_seconds:g} s per phase"
            )
            for readers in (1, MANY_READERS):
                name = f"HTTP, {readers:>3} reader{'s' if readers > 1 else ''}"
                await phase(
                    name,
                    readers,
                    world.warm_seconds,
                    read_page,
                    prometheus,
                    evaluations,
                    latest,
                    interval,
                    handling=handling,
                )
            whole = await drive(1, min(world.warm_seconds, 10.0), read_whole)
            line(
                "for reference: HTTP, 1 reader, the whole snapshot: p50 / p99",
                f"{ms(whole.percentile(50))} / {ms(whole.percentile(99)).strip()}  "
                f"({whole.per_second:,.1f} reads/s)",
            )
            if world.soak_seconds > 0:
                await soak(world, read_page, prometheus, evaluations, latest, handling)
        finally:
            refresher.cancel()
            await asyncio.gather(refresher, return_exceptions=True)


async def soak(
    world: World,
    read: Callable[[], Awaitable[bool]],
    prometheus: httpx.AsyncClient,
    evaluations: Callable[[], Awaitable[tuple[float, float]]],
    latest: Callable[[], Awaitable[float]],
    handling: Callable[[], Awaitable[tuple[float, float]]],
) -> None:
    first_at = min(SOAK_FIRST_SECONDS, world.soak_seconds)
    print(
        f"\n4. RSS soak: {MANY_READERS} HTTP readers for {world.soak_seconds:g} s "
        f"(VmRSS of this process: server, refresher and readers)"
    )
    readings: list[float] = []
    # One reading a minute besides: a plateau (bounded caches filling) and a leak differ in shape.
    minutes: list[float] = []

    async def first_reading() -> None:
        await asyncio.sleep(first_at)
        readings.append(rss_mib())
        while len(minutes) + 1 < world.soak_seconds / 60:
            await asyncio.sleep(60)
            minutes.append(rss_mib())

    result = await phase(
        f"soak, {MANY_READERS} readers",
        MANY_READERS,
        world.soak_seconds,
        read,
        prometheus,
        evaluations,
        latest,
        world.refresh_seconds,
        alongside=first_reading,
        handling=handling,
    )
    last = result.rss_mib
    first = readings[0] if readings else math.nan
    line(f"RSS after the first {first_at:g} s", f"{first:8.1f} MiB")
    line(f"RSS after {result.reads.seconds:.0f} s", f"{last:8.1f} MiB")
    line("growth", f"{last - first:8.1f} MiB  ({(last - first) / first * 100:+.1f} %)")
    if minutes:
        line("RSS minute by minute after the first", " ".join(f"{value:.1f}" for value in minutes) + " MiB")


# -- main ----------------------------------------------------------------------------------------------


async def measure(world: World) -> None:
    settings = world.settings
    database = Database.from_settings(settings)
    await database.upgrade()
    try:
        async with httpx.AsyncClient(base_url=world.prometheus.url, timeout=60) as prometheus:
            await cold(world, database, prometheus)
            await warm_in_process(world, database, prometheus)
    finally:
        await database.close()
    async with httpx.AsyncClient(base_url=world.prometheus.url, timeout=60) as prometheus:
        await warm_http(world, prometheus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--warm-seconds", type=float, default=30.0, help="length of each warm phase")
    parser.add_argument("--soak-seconds", type=float, default=600.0, help="length of the soak; 0 skips it")
    args = parser.parse_args()
    # The access log of every read would drown the figures.
    configure_logging("console", "warning")
    with tempfile.TemporaryDirectory(prefix="nufi-bench-monitoring-") as scratch:
        work = Path(scratch)
        exporter: ManagedProcess | None = None
        cluster: DevClusterProcess | None = None
        identity: IdentityProviderProcess | None = None
        prometheus = PrometheusServer(
            scrape_interval=f"{SCRAPE_INTERVAL_SECONDS}s", work_dir=work / "prometheus"
        )
        try:
            print(
                f"world: {NODES:,} nodes x {DEVICES_PER_NODE} GPUs = {NODES * DEVICES_PER_NODE:,} devices "
                f"(mock exporter, DCGM profile), a dev cluster with the same nodes and {PODS} pods "
                f"holding GPUs, Prometheus scraping every {SCRAPE_INTERVAL_SECONDS} s; starting it",
                flush=True,
            )
            exporter, address = start_exporter(work)
            cluster = start_cluster(work)
            identity = IdentityProviderProcess(work / "idp").start()
            prometheus.start()
            prometheus.set_jobs(
                [ScrapeJob("dcgm", [address], labels={"pod": "dcgm-exporter", "namespace": "gpu"})]
            )
            asyncio.run(wait_for_every_device(prometheus))
            world = World(prometheus, cluster, identity, work, args.warm_seconds, args.soak_seconds)
            print(
                f"refresh interval {world.refresh_seconds:g} s; warm phases {args.warm_seconds:g} s, "
                f"soak {args.soak_seconds:g} s",
                flush=True,
            )
            asyncio.run(measure(world))
        finally:
            prometheus.stop()
            for process in (identity, cluster, exporter):
                if process is not None:
                    process.stop()


if __name__ == "__main__":
    main()
