"""A monitoring snapshot of 1,000 nodes x 8 GPUs against the raw Prometheus queries it needs.

Starts its own Prometheus (15 s scrape interval), the mock exporter in its DCGM profile simulating
1,000 nodes with 8 GPUs each, and a dev cluster with the same nodes and a few hundred pods holding GPUs.
Then, alternating, it times:

- NuFi: `MonitoringService.snapshot(...)` for the NVIDIA preset, in process: the catalog read, five
  Prometheus queries, the node and pod lists, and the join into nodes and devices;
- the floor: the same five PromQL queries sent at once with httpx, their JSON decoded, nothing else;
- for reference, the preset's bare expressions the same way (what a staleness-blind client would send).

It prints medians and ratios; it never fails on time. Run: `.venv/bin/python -m bench.monitoring_snapshot`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import yaml
from pydantic import SecretStr

from nufi.auth import Principal
from nufi.cluster import ClusterGateway
from nufi.cluster.inventory import list_bound_pods, list_nodes
from nufi.config import Settings
from nufi.db import Database
from nufi.devices import FetcherRegistry
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.presets import official_preset
from nufi.monitoring import MonitoringService, MonitoringSettings
from nufi.prom import PrometheusGateway
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob

NODES = 1000
DEVICES_PER_NODE = 8
PODS = 300
SCRAPE_INTERVAL_SECONDS = 15
RUNS = 7
TYPE_ID = "nvidia-gpu"
NODE_NAMES = [f"gpu-{i:04d}" for i in range(NODES)]


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
    process.wait_ready(
        lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
        60.0,
        "answering /healthz",
    )
    return process, address


def start_cluster(work: Path) -> DevClusterProcess:
    nodes = [
        {"name": name, "device_plugins": False, "capacity": {"nvidia.com/gpu": DEVICES_PER_NODE}}
        for name in NODE_NAMES
    ]
    nodes_file = work / "nodes.yaml"
    nodes_file.write_text(yaml.safe_dump({"nodes": nodes}))
    cluster = DevClusterProcess(work / "cluster", nodes_file=nodes_file).start(timeout=120)
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


async def measure(prometheus: PrometheusServer, cluster: DevClusterProcess, work: Path) -> None:
    settings = Settings(
        database_url=SecretStr(f"sqlite+aiosqlite:///{work / 'nufi.db'}"),
        prometheus_url=prometheus.url,
        kubeconfig=cluster.kubeconfig,
    )
    database = Database.from_settings(settings)
    await database.upgrade()
    recorder = RecordingTransport()
    gateway = PrometheusGateway(prometheus.url, timeout_seconds=60, transport=recorder)
    kube = ClusterGateway.from_settings(settings, environ={})
    monitoring_settings = MonitoringSettings(scrape_interval_seconds=SCRAPE_INTERVAL_SECONDS)
    fetchers = FetcherRegistry.with_plugins()
    catalog = DeviceCatalog(database, kube, gateway, fetchers)
    service = MonitoringService(catalog, fetchers, kube, gateway, monitoring_settings)
    principal = Principal(subject="bench", username="bench", roles=frozenset())
    preset = official_preset(TYPE_ID)
    assert preset is not None
    bare = list(preset.metrics.queries().values())
    try:
        async with httpx.AsyncClient(base_url=prometheus.url, timeout=60) as client:
            # A warm-up that also records the PromQL NuFi sends: the floor sends exactly that.
            snapshot = await service.snapshot(principal, TYPE_ID)
            wrapped = list(recorder.queries)
            recorder.recording = False
            await raw_queries(client, wrapped)
            await raw_queries(client, bare)
            await list_nodes(kube)
            print(
                f"snapshot: {snapshot.summary.nodes} nodes, {snapshot.summary.devices} devices, "
                f"{len(snapshot.stale)} stale, {len(snapshot.errors)} errors; {len(bare)} queries"
            )
            nufi, floor, plain, kubernetes = [], [], [], []
            for _ in range(RUNS):
                floor.append(await timed(lambda: raw_queries(client, wrapped)))
                nufi.append(await timed(lambda: service.snapshot(principal, TYPE_ID)))
                plain.append(await timed(lambda: raw_queries(client, bare)))
                kubernetes.append(
                    await timed(lambda: asyncio.gather(list_nodes(kube), list_bound_pods(kube)))
                )
    finally:
        await gateway.close()
        await kube.close()
        await database.close()
    report(nufi, floor, plain, kubernetes)


def report(nufi: list[float], floor: list[float], plain: list[float], kubernetes: list[float]) -> None:
    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:8.1f} ms"

    median_nufi, median_floor = statistics.median(nufi), statistics.median(floor)
    print(f"\n{NODES} nodes x {DEVICES_PER_NODE} devices, median of {RUNS} runs")
    print(f"  NuFi snapshot (service call)                  {ms(nufi)}")
    print(f"  floor: the same PromQL via httpx, JSON decoded {ms(floor)}")
    print(
        f"  ratio NuFi / floor                            {median_nufi / median_floor:8.2f}x  (goal <= 1.5x)"
    )
    print("  for reference:")
    print(f"    bare expressions via httpx (no last-seen)   {ms(plain)}")
    print(f"    node + pod lists alone (run in parallel)    {ms(kubernetes)}")
    print(f"    ratio NuFi / bare expressions               {median_nufi / statistics.median(plain):8.2f}x")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="nufi-bench-monitoring-") as scratch:
        work = Path(scratch)
        exporter: ManagedProcess | None = None
        cluster: DevClusterProcess | None = None
        prometheus = PrometheusServer(
            scrape_interval=f"{SCRAPE_INTERVAL_SECONDS}s", work_dir=work / "prometheus"
        )
        try:
            print(
                f"starting the mock exporter ({NODES} x {DEVICES_PER_NODE} GPUs), the dev cluster, Prometheus"
            )
            exporter, address = start_exporter(work)
            cluster = start_cluster(work)
            prometheus.start()
            prometheus.set_jobs(
                [ScrapeJob("dcgm", [address], labels={"pod": "dcgm-exporter", "namespace": "gpu"})]
            )
            asyncio.run(wait_for_every_device(prometheus))
            asyncio.run(measure(prometheus, cluster, work))
        finally:
            prometheus.stop()
            if cluster is not None:
                cluster.stop()
            if exporter is not None:
                exporter.stop()


if __name__ == "__main__":
    main()
