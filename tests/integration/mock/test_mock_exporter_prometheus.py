"""`nufi-mock exporter` scraped by the real Prometheus, with pod attribution from the dev cluster."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi_mock.exporter import ExporterConfig, PodRef, build_engine
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.dev_cluster import dev_cluster
from support.polling import poll
from support.prometheus_jobs import retire_jobs

from .mock_support import Kube, launch_exporter, pod_asking, start_plugin, wait_answering

NODE, IDLE_NODE = "lpu-node-1", "lpu-node-2"
HELD = PodRef("default", "infer", "app")
# What a ServiceMonitor puts on the exporter's own target.
EXPORTER_TARGET_LABELS = {"pod": "dcgm-exporter-7xk2p", "namespace": "gpu-operator", "container": "exporter"}


@dataclass
class World:
    cluster: DevClusterProcess
    lpu_url: str
    prometheus: PrometheusServer


@pytest.fixture(scope="module")
async def world(
    tmp_path_factory: pytest.TempPathFactory, prometheus: PrometheusServer
) -> AsyncIterator[World]:
    # Series of an earlier module's jobs marked stale first, and ours when we are done: the next
    # module counts series too.
    await retire_jobs(prometheus)
    base = tmp_path_factory.mktemp("mock-exporter")
    nodes = f"nodes:\n  - name: {NODE}\n  - name: {IDLE_NODE}\n    device_plugins: false\n"
    # The cluster's state (and the kubelet sockets in it) directly under /tmp: below a pytest-xdist
    # worker's tmp dir the socket paths pass the 108-byte limit of a unix socket.
    with dev_cluster(nodes, prefix="mexp-") as cluster:
        processes: list[ManagedProcess] = []
        try:
            processes.append(start_plugin(cluster.device_plugin_dir(NODE), base))
            # The exporters start alongside: they pick the pod up on their next PodResources query.
            socket = f"{NODE}={cluster.pod_resources_socket(NODE)}"
            common = ["--nodes", f"{NODE},{IDLE_NODE}", "--interval", "0.2", "--pod-resources-socket", socket]
            lpu, lpu_address = launch_exporter("exporter-lpu", base, "--profile", "lpu", *common)
            dcgm, dcgm_address = launch_exporter(
                "exporter-dcgm", base, "--profile", "dcgm", "--resource-name", "hyperaccel.ai/lpu", *common
            )
            processes += [lpu, dcgm]
            kube = Kube(cluster)
            poll(lambda: kube.lpu_counts(NODE) == ("4", "4"), what="four LPUs advertised")
            kube.create_pod(pod_asking("infer", 2))
            poll(lambda: kube.pod("infer")["status"].get("phase") == "Running", what="the pod Running")
            wait_answering(lpu, lpu_address)
            wait_answering(dcgm, dcgm_address)
            prometheus.set_jobs(
                [
                    ScrapeJob("mock-lpu", [lpu_address]),
                    ScrapeJob("mock-dcgm", [dcgm_address], honor_labels=False, labels=EXPORTER_TARGET_LABELS),
                ]
            )
            yield World(cluster, f"http://{lpu_address}", prometheus)
        finally:
            await retire_jobs(prometheus)
            for process in reversed(processes):
                process.stop()


def by_device(result: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(s["metric"]["node"], s["metric"]["device"]): s for s in result}


async def test_every_metric_with_pod_labels_on_allocated_devices_only(world: World) -> None:
    prom = world.prometheus
    for name in (
        "lpu_utilization_percent",
        "lpu_memory_used_bytes",
        "lpu_memory_total_bytes",
        "lpu_temperature_celsius",
        "lpu_health",
    ):
        result = await prom.wait_for_series(f'count({name}{{job="mock-lpu"}}) == 8', timeout=30)
        assert result
        series = by_device(await prom.query(f'{name}{{job="mock-lpu"}}'))
        assert set(series) == {(n, f"lpu{i}") for n in (NODE, IDLE_NODE) for i in range(4)}
        for (node, device), sample in series.items():
            labels = {k: v for k, v in sample["metric"].items() if k not in ("__name__", "job", "instance")}
            if (node, device) in ((NODE, "lpu0"), (NODE, "lpu1")):
                assert labels == {"node": node, "device": device, "pod": "infer", "namespace": "default"}
            else:
                assert labels == {"node": node, "device": device}


async def test_held_devices_idle_until_their_workload_reports_load(world: World) -> None:
    prom = world.prometheus
    # Holding is not working: with no load reported, the pod's devices idle like the free ones.
    await prom.wait_for_series('count(lpu_utilization_percent{job="mock-lpu",pod="infer"}) == 2', timeout=20)
    idle = await prom.query('lpu_utilization_percent{job="mock-lpu"}')
    assert len(idle) == 8 and all(float(s["value"][1]) <= 2.0 for s in idle)
    report = {"source": "default/infer", "node": NODE, "devices": ["lpu0", "lpu1"], "utilization": 80}
    async with httpx.AsyncClient(base_url=world.lpu_url) as client:
        # One report, long enough for this test; withdrawn at the end so the module's other tests see
        # the devices as the kubelet leaves them.
        response = await client.post("/control/load", json={**report, "ttl_seconds": 120})
        assert response.status_code == 201, response.text
        try:
            # Both held devices ramp up; wait until both are past 50 % rather than the first one.
            busy_query = 'lpu_utilization_percent{job="mock-lpu",pod="infer"} > 50'
            await prom.wait_for_series(f"count({busy_query}) == 2", timeout=20)
            busy = await prom.query(busy_query)
            assert {s["metric"]["device"] for s in busy} == {"lpu0", "lpu1"}
            idle = await prom.query('lpu_utilization_percent{job="mock-lpu",pod=""}')
            assert len(idle) == 6 and all(float(s["value"][1]) <= 2.0 for s in idle)
            # Memory follows load with some lag, so wait for the busy device's share to climb.
            ratio = 'lpu_memory_used_bytes{job="mock-lpu"} / lpu_memory_total_bytes'
            busy_device = f'node="{NODE}",device="lpu0"'
            await prom.wait_for_series(
                f"lpu_memory_used_bytes{{{busy_device}}} / lpu_memory_total_bytes{{{busy_device}}} > 0.3",
                timeout=20,
            )
            used = by_device(await prom.query(ratio))
            assert float(used[(NODE, "lpu2")]["value"][1]) < 0.3
        finally:
            await client.request("DELETE", "/control/load", json={"source": "default/infer"})


async def test_override_shows_within_two_scrapes_and_ends_when_deleted(world: World) -> None:
    prom = world.prometheus
    await prom.wait_for_series('lpu_temperature_celsius{job="mock-lpu"}', timeout=30)
    query = f'lpu_temperature_celsius{{job="mock-lpu",node="{NODE}"}}'
    assert prom.scrape_interval.endswith("s")
    scrape_interval = float(prom.scrape_interval.removesuffix("s"))
    async with httpx.AsyncClient(base_url=world.lpu_url) as client:
        response = await client.post(
            "/control/override",
            json={
                "node": NODE,
                "device": None,
                "metric": "temperature",
                "value": 95,
                "duration_seconds": 120,
            },
        )
        assert response.status_code == 201, response.text
        posted = time.monotonic()

        async def all_at(check: Any) -> None:
            while True:
                values = [float(s["value"][1]) for s in await prom.query(query)]
                if len(values) == 4 and all(check(v) for v in values):
                    return
                assert time.monotonic() - posted < 3 * scrape_interval + 2.0, values
                await asyncio.sleep(0.1)

        await all_at(lambda v: v == 95.0)
        # Two scrapes, plus a second for ingestion and this loop's own polling.
        assert time.monotonic() - posted <= 2 * scrape_interval + 1.0
        others = await prom.query(f'lpu_temperature_celsius{{job="mock-lpu",node="{IDLE_NODE}"}}')
        assert all(float(s["value"][1]) < 45 for s in others)

        removed = await client.delete("/control/override")
        assert [o["node"] for o in removed.json()["removed"]] == [NODE]
        posted = time.monotonic()
        await all_at(lambda v: v < 90.0)
        assert time.monotonic() - posted <= 2 * scrape_interval + 1.0


async def test_dcgm_pod_labels_become_exported_labels_without_honor_labels(world: World) -> None:
    prom = world.prometheus
    await prom.wait_for_series('count(DCGM_FI_DEV_GPU_UTIL{job="mock-dcgm"}) == 8', timeout=30)
    series = await prom.query(f'DCGM_FI_DEV_GPU_UTIL{{job="mock-dcgm",Hostname="{NODE}"}}')
    by_gpu = {s["metric"]["gpu"]: s["metric"] for s in series}
    for gpu in ("0", "1"):
        labels = by_gpu[gpu]
        assert labels["exported_pod"] == "infer"
        assert labels["exported_namespace"] == "default"
        assert labels["exported_container"] == "app"
        assert labels["pod"] == EXPORTER_TARGET_LABELS["pod"]
        assert labels["device"] == f"nvidia{gpu}" and labels["UUID"].startswith("GPU-")
    for gpu in ("2", "3"):
        assert "exported_pod" not in by_gpu[gpu]
        assert by_gpu[gpu]["namespace"] == "gpu-operator"


@pytest.mark.parametrize("profile", ["furiosa", "rbln"])
async def test_v1alpha1_profiles_attribute_through_the_kubelet(world: World, profile: str) -> None:
    socket = Path(world.cluster.pod_resources_socket(NODE))
    engine = build_engine(
        ExporterConfig(
            profile=profile,
            nodes=(NODE,),
            pod_resources={NODE: socket},
            resource_patterns=("hyperaccel.ai/*",),
        )
    )
    assert engine.profile.pod_resources_api == "v1alpha1"
    try:
        await engine.refresh_attribution()
    finally:
        await engine.close()
    assert engine.owners_of(NODE) == {0: HELD, 1: HELD}
