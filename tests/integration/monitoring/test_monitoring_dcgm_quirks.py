"""The NVIDIA preset over the quirky DCGM mock (what real scrapes show, interop-facts §2.4), scraped by
the real Prometheus once with `honor_labels: true` and once with `false`.

Each job has nodes of its own (`dq-<job>-1`, `dq-<job>-2`, two GPUs each). The mock with `--quirks`
labels idle GPUs with its own pod, partitions GPU 1 of the first node into two MIG instances held by
two pods, names the second node's exporter pod in `Hostname` (with the node in a `node` label), reads
DCGM_FI_DEV_MEMORY_TEMP as 0 and exports DCGM_FI_DEV_FB_RESERVED. Framebuffer use is pinned, so used
and free come from settled values whichever scrape each query sees.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi.devices.official.nvidia import PRESET, DcgmFetcher, dcgm_series
from nufi.devices.spec import Metrics
from nufi.prom import PrometheusGateway
from nufi_mock.exporter.profiles.dcgm import MIG_PODS, exporter_pod
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import ScrapeJob
from support.prometheus_jobs import retire_jobs

from .monitoring_app import World

MiB = 1024**2
USED_MIB = 30000.0
# What a ServiceMonitor puts on the exporter's own target; honor_labels false lets it win.
EXPORTER_TARGET = {
    "pod": "nvidia-dcgm-exporter-q7x2m",
    "namespace": "gpu-operator",
    "container": "nvidia-dcgm-exporter",
}
JOBS = {"honor": True, "renamed": False}  # job suffix -> honor_labels


def nodes_of(suffix: str) -> tuple[str, str]:
    return (f"dq-{suffix}-1", f"dq-{suffix}-2")


def start_quirky(job: str, nodes: tuple[str, ...], log_dir: Path) -> tuple[ManagedProcess, str]:
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--profile", "dcgm", "--quirks", "--nodes", ",".join(nodes), "--devices-per-node", "2"]
    argv += ["--no-pod-resources", "--interval", "0.5", "--log-format", "json"]
    process = ManagedProcess(job, argv, log_dir=log_dir).start()
    address = f"127.0.0.1:{port}"
    try:
        process.wait_ready(
            lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
            20.0,
            "answering /healthz",
        )
        for node in nodes:
            body = {"node": node, "device": None, "metric": "DCGM_FI_DEV_FB_USED", "value": USED_MIB}
            response = httpx.post(f"http://{address}/control/override", json=body, timeout=5.0)
            assert response.status_code in (200, 201), response.text
    except BaseException:
        process.stop()
        raise
    return process, address


@pytest.fixture(scope="module")
async def quirky(scraped: World, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    prometheus = scraped.prometheus
    log_dir = tmp_path_factory.mktemp("dcgm-quirks")
    processes: list[ManagedProcess] = []
    jobs: list[ScrapeJob] = []
    try:
        for suffix, honor in JOBS.items():
            process, address = start_quirky(f"dcgm-quirks-{suffix}", nodes_of(suffix), log_dir)
            processes.append(process)
            labels = {} if honor else EXPORTER_TARGET
            jobs.append(ScrapeJob(f"dcgm-quirks-{suffix}", [address], honor_labels=honor, labels=labels))
        prometheus.set_jobs([*prometheus.jobs, *jobs])
        for job in jobs:
            # Three GPU series per node on the first (the MIG card counts twice), two on the second.
            await prometheus.wait_for_series(
                f'count(DCGM_FI_DEV_FB_USED{{job="{job.name}"}} == {USED_MIB / 2} or '
                f'DCGM_FI_DEV_FB_USED{{job="{job.name}"}} == {USED_MIB}) == 5',
                timeout=30,
            )
        yield scraped
    finally:
        if jobs:
            await retire_jobs(prometheus, {job.name for job in jobs})
        for process in processes:
            process.stop()


async def snapshot(nufi: httpx.AsyncClient, user: dict[str, str]) -> dict[str, Any]:
    response = await nufi.get("/api/v1/monitoring/nvidia-gpu", headers=user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize("suffix", list(JOBS))
async def test_every_gpu_and_mig_instance_once_on_its_node_held_by_its_pod(
    quirky: World, nufi: httpx.AsyncClient, user: dict[str, str], suffix: str
) -> None:
    body = await snapshot(nufi, user)
    first, second = nodes_of(suffix)
    nodes = {node["node"]: node for node in body["nodes"]}
    # The misnamed Hostname never becomes a node of its own: the `node` label found the node.
    assert exporter_pod(second) not in nodes
    listed = [(node, d["device"]) for node in (first, second) for d in nodes[node]["devices"]]
    assert sorted(listed) == [(first, "0"), (first, "1/1"), (first, "1/2"), (second, "0"), (second, "1")]
    devices = {(node, d["device"]): d for node in (first, second) for d in nodes[node]["devices"]}
    held = {key: (d["namespace"], d["pod"]) for key, d in devices.items()}
    assert held == {
        (first, "0"): (None, None),
        (first, "1/1"): (MIG_PODS[0].namespace, MIG_PODS[0].pod),
        (first, "1/2"): (MIG_PODS[1].namespace, MIG_PODS[1].pod),
        (second, "0"): (None, None),
        (second, "1"): (None, None),
    }
    # No device anywhere is the exporter's own.
    every_pod = {d["pod"] for node in body["nodes"] for d in node["devices"]}
    assert not {pod for pod in every_pod if pod and "dcgm-exporter" in pod}
    for key, device in devices.items():
        share = 0.5 if "/" in key[1] else 1.0
        assert device["memory_used_bytes"] == USED_MIB * share * MiB, key
        # used + free + reserved: the card's (or the instance's share of its) 81920 MiB.
        assert device["memory_total_bytes"] == 81920 * share * MiB, key
        assert device["temperature_celsius"] is not None and device["temperature_celsius"] > 0, key


async def test_a_memory_temperature_of_0_is_not_reported(quirky: World) -> None:
    memory_temperature = PRESET.model_copy(
        update={
            "metrics": Metrics(
                utilization=PRESET.metrics.utilization, temperature=dcgm_series("DCGM_FI_DEV_MEMORY_TEMP")
            )
        }
    )
    gateway = PrometheusGateway(quirky.prometheus.url)
    try:
        readings = await DcgmFetcher().readings(memory_temperature, gateway)
    finally:
        await gateway.close()
    ours = [d for d in readings.devices if d.node.startswith("dq-")]
    assert len(ours) == 2 * 5
    assert all(d.temperature_celsius is None for d in ours)
