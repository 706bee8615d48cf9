"""The RNGD and ATOM presets against what real exporters emit (interop-facts §3.3, §4.3), through the
session Prometheus scraping the mock exporter with quirks: a partitioned RNGD card repeating its
device-wise series per pod, and an old RBLN exporter's legacy names in GiB, m°C and µW."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi.devices.metric_checks import check_metrics
from nufi.devices.official import furiosa, rebellions
from nufi.devices.readings import QueryOutcome, Readings, assemble_readings
from nufi.devices.spec import DeviceType, MetricKey
from nufi.prom.gateway import PrometheusGateway
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob

from .monitoring_app import World

GiB = 2**30
NPU_NODE, ATOM_NODE = "quirk-npu-1", "quirk-atom-1"
# (profile, naming, node, pins in canonical units)
QUIRKY = {
    "quirks-furiosa": (
        "furiosa",
        "current",
        NPU_NODE,
        {"utilization": 60.0, "temperature": 48.5, "power": 120.25, "memory_used": 12e9},
    ),
    "quirks-rbln": (
        "rbln",
        "legacy",
        ATOM_NODE,
        {"temperature": 52.5, "power": 70.5, "memory_used": 4 * GiB, "utilization": 33.5},
    ),
}


def _start(job: str, profile: str, naming: str, node: str, log_dir: Path) -> tuple[ManagedProcess, str]:
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--profile", profile, "--naming", naming, "--quirks", "--nodes", node, "--devices-per-node", "2"]
    argv += ["--no-pod-resources", "--interval", "0.5", "--log-format", "json"]
    process = ManagedProcess(job, argv, log_dir=log_dir).start()
    address = f"127.0.0.1:{port}"
    process.wait_ready(
        lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
        20.0,
        "answering /healthz",
    )
    return process, address


@pytest.fixture(scope="module")
async def quirky(world: World, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[PrometheusServer]:
    prometheus = world.prometheus
    log_dir = tmp_path_factory.mktemp("npu-quirks")
    started: list[ManagedProcess] = []
    addresses: dict[str, str] = {}
    try:
        for job, (profile, naming, node, pins) in QUIRKY.items():
            process, address = _start(job, profile, naming, node, log_dir)
            started.append(process)
            addresses[job] = address
            async with httpx.AsyncClient(timeout=5.0) as client:
                for metric, value in pins.items():
                    body: dict[str, Any] = {"node": node, "device": None, "metric": metric, "value": value}
                    response = await client.post(f"http://{address}/control/override", json=body)
                    assert response.status_code in (200, 201), response.text
        others = [job for job in prometheus.jobs if job.name not in QUIRKY]
        prometheus.set_jobs([*others, *(ScrapeJob(job, [address]) for job, address in addresses.items())])
        await prometheus.wait_for_series(
            f'furiosa_npu_hw_temperature{{hostname="{NPU_NODE}",core="4-7",label="peak"}} == 48.5', timeout=30
        )
        await prometheus.wait_for_series(
            f'RBLN_DEVICE_STATUS:TEMPERATURE{{hostname="{ATOM_NODE}"}} == 52500', timeout=30
        )
        yield prometheus
    finally:
        # Left without targets, the jobs' series are marked stale rather than lingering.
        others = [job for job in prometheus.jobs if job.name not in QUIRKY]
        prometheus.set_jobs([*others, *(ScrapeJob(job, []) for job in QUIRKY)])
        for process in started:
            process.stop()


async def _readings(prometheus: PrometheusServer, preset: DeviceType, node: str) -> Readings:
    gateway = PrometheusGateway(prometheus.url)
    outcomes: dict[MetricKey, QueryOutcome] = {}
    for metric, query in preset.metrics.queries().items():
        outcomes[metric] = await gateway.query(query)
    readings = assemble_readings(preset.labels, preset.metrics, outcomes)
    return Readings(
        devices=tuple(d for d in readings.devices if d.node == node),
        problems=readings.problems,
        queried_at=readings.queried_at,
    )


async def test_a_partitioned_rngd_card_is_one_device_with_its_values_and_a_partition_pod(
    quirky: PrometheusServer,
) -> None:
    readings = await _readings(quirky, furiosa.PRESET, NPU_NODE)
    assert [d.device for d in readings.devices] == ["npu0", "npu1"]
    card = readings.devices[0]
    assert (card.pod, card.namespace) in {("rngd-part-0", "npu-jobs"), ("rngd-part-1", "npu-jobs")}
    for device in readings.devices:
        assert device.temperature_celsius == 48.5 and device.power_watts == 120.25
        assert device.memory_used_bytes == 12e9
        assert device.utilization_percent == pytest.approx(60.0, abs=5)
    assert readings.devices[1].pod is None
    # The partitions repeat the card's series: three per device-wise metric, one device.
    raw = await quirky.query(f'furiosa_npu_dram_usage{{hostname="{NPU_NODE}",device="npu0"}}')
    assert len(raw) == 3


async def test_old_rbln_units_are_recognised_and_normalised(quirky: PrometheusServer) -> None:
    readings = await _readings(quirky, rebellions.PRESET, ATOM_NODE)
    assert [d.device for d in readings.devices] == ["rbln0", "rbln1"]
    for device in readings.devices:
        assert device.temperature_celsius == pytest.approx(52.5)
        assert device.power_watts == pytest.approx(70.5)
        assert device.memory_total_bytes == 64 * GiB
        assert device.memory_used_bytes == pytest.approx(4 * GiB, rel=1e-4)
        assert device.utilization_percent == 33.5
        assert device.health == 1


async def test_the_metric_check_names_each_conversion(quirky: PrometheusServer) -> None:
    preset = rebellions.PRESET
    checked = await check_metrics(preset.labels, preset.metrics, PrometheusGateway(quirky.url))
    expected = {
        "temperature": "from m°C to °C",
        "power": "from µW to W",
        "memory_total": "from GiB to bytes",
        "memory_used": "from GiB to bytes",
    }
    for metric, conversion in expected.items():
        result = checked.results[metric]
        assert result.ok, result.error
        assert any("series were converted " + conversion in w for w in result.warnings), result.warnings
        assert not any("look implausible" in w for w in result.warnings), result.warnings
    assert not any("were converted" in w for w in checked.results["utilization"].warnings)
