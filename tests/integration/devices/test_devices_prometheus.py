"""Metric checks and readings against the real Prometheus scraping a test exporter.

The exporter emits LPU-, DCGM-, Furiosa- and Rebellions-shaped series. The DCGM target is scraped with
`pod`/`namespace` target labels, as a ServiceMonitor does, so Prometheus renames the exporter's own
labels to `exported_pod`/`exported_namespace`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from nufi.devices.checks import check_metrics
from nufi.devices.fetcher import GenericFetcher
from nufi.devices.official.nvidia import DcgmFetcher
from nufi.devices.presets import OFFICIAL_PRESETS
from nufi.devices.readings import DeviceReading
from nufi.devices.spec import DeviceType, LabelsDraft, MetricsDraft
from nufi.prom import PrometheusGateway, PrometheusUnavailable
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.engines import EXECUTION_REFUSAL
from support.loopback import closed_port
from support.lpu_type import LPU_LABELS, LPU_METRICS
from support.prometheus_jobs import retire_jobs

from .device_test_exporter import serving
from .device_test_series import DCGM_SERIES, LPU_SERIES, VENDOR_SERIES, GiB, MiB


@pytest.fixture(scope="module")
async def exporters(prometheus: PrometheusServer) -> AsyncIterator[None]:
    # The checks count series, so the series of jobs an earlier module left behind must be gone.
    await retire_jobs(prometheus)
    with (
        serving(LPU_SERIES) as lpu_target,
        serving(DCGM_SERIES) as dcgm_target,
        serving(VENDOR_SERIES) as vendor,
    ):
        prometheus.set_jobs(
            [
                ScrapeJob("devices-lpu", [lpu_target]),
                ScrapeJob(
                    "devices-dcgm",
                    [dcgm_target],
                    labels={"pod": "dcgm-exporter-x7k2p", "namespace": "gpu-operator"},
                ),
                ScrapeJob("devices-vendors", [vendor]),
            ]
        )
        try:
            yield
        finally:
            await retire_jobs(prometheus)


class CountingTransport(httpx.AsyncBaseTransport):
    """Passes requests to a real transport and records every PromQL query sent."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.queries: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/api/v1/query"):
            self.queries.append(request.url.params["query"])
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.fixture(scope="module")
async def scraped(prometheus: PrometheusServer, exporters: None) -> None:
    for query in (
        "lpu_temperature_celsius",
        "DCGM_FI_DEV_POWER_USAGE",
        '{__name__="RBLN_DEVICE_STATUS:CARD_POWER"}',
    ):
        await prometheus.wait_for_series(query, timeout=30)


@pytest.fixture
async def counted(
    prometheus: PrometheusServer, scraped: None
) -> AsyncIterator[tuple[PrometheusGateway, CountingTransport]]:
    transport = CountingTransport()
    gateway = PrometheusGateway(prometheus.url, transport=transport)
    try:
        yield gateway, transport
    finally:
        await gateway.close()


async def check(gateway: PrometheusGateway, labels: dict[str, Any] | None = None, **metrics: Any) -> Any:
    return await check_metrics(
        LabelsDraft.model_validate(labels or LPU_LABELS),
        MetricsDraft.model_validate({**LPU_METRICS, **metrics}),
        gateway,
    )


async def test_good_expressions_pass(counted: tuple[PrometheusGateway, CountingTransport]) -> None:
    gateway, transport = counted
    result = await check(gateway)
    assert result.ok and result.label_errors == {}
    assert set(result.results) == {"utilization", "memory_used", "memory_total", "temperature"}
    for verdict in result.results.values():
        assert verdict.ok and verdict.error is None and verdict.warnings == [] and verdict.series == 3
    samples = [(p.node, p.device, p.value) for p in result.results["utilization"].sample]
    assert samples == [("lpu-a", "lpu0", 42.5), ("lpu-a", "lpu1", 0.0), ("lpu-b", "lpu0", 97.0)]
    assert sorted(transport.queries) == sorted(MetricsDraft.model_validate(LPU_METRICS).queries().values())


async def test_a_series_without_the_device_label_is_an_error_suggesting_an_aggregation(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, _ = counted
    result = await check(gateway, utilization="sum by (node) (lpu_utilization_percent)")
    verdict = result.results["utilization"]
    assert not result.ok and not verdict.ok
    assert verdict.missing_labels == ["device"]
    assert verdict.error is not None
    assert "2 of 2 series have no 'device' label" in verdict.error
    assert "'max by (node, device) (sum by (node) (lpu_utilization_percent))'" in verdict.error
    assert "(they have: node)" in verdict.error  # the labels the series do carry
    assert result.results["temperature"].ok


async def test_an_expression_without_series_only_warns(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, _ = counted
    result = await check(gateway, power="lpu_power_watts")
    verdict = result.results["power"]
    assert result.ok and verdict.ok and verdict.series == 0
    assert len(verdict.warnings) == 1 and verdict.warnings[0].startswith("no series yet")


async def test_implausible_values_warn(counted: tuple[PrometheusGateway, CountingTransport]) -> None:
    gateway, _ = counted
    result = await check(
        gateway,
        utilization="lpu_utilization_percent * 10",
        temperature="lpu_temperature_celsius + 200",
        memory={"mode": "used_total", "used": "-lpu_memory_used_bytes", "total": "lpu_memory_total_bytes"},
        power="lpu_temperature_celsius * 0 - 5",
    )
    assert result.ok
    warnings = {key: verdict.warnings for key, verdict in result.results.items()}
    assert warnings["utilization"] == [warnings["utilization"][0]]
    assert "2 of 3 values look implausible (e.g. 970)" in warnings["utilization"][0]
    assert "0 to 100" in warnings["utilization"][0]
    assert "3 of 3" in warnings["temperature"][0] and "°C" in warnings["temperature"][0]
    assert "2 of 3" in warnings["memory_used"][0] and "negative" in warnings["memory_used"][0]
    assert warnings["memory_total"] == []
    assert "power draw" in warnings["power"][0]


async def test_syntax_errors_carry_the_parsers_message_and_send_no_query(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, transport = counted
    result = await check(gateway, temperature="max by (node (lpu_temperature_celsius)")
    verdict = result.results["temperature"]
    assert not result.ok and verdict.error is not None
    assert "cannot parse 'max by (node (lpu_temperature_celsius)'" in verdict.error
    assert "max by (node (lpu_temperature_celsius)" not in transport.queries
    assert len(transport.queries) == 3


async def test_execution_errors_from_prometheus_are_reported(
    counted: tuple[PrometheusGateway, CountingTransport], prometheus: PrometheusServer
) -> None:
    gateway, _ = counted
    result = await check(gateway, utilization="lpu_utilization_percent + on (node) lpu_memory_used_bytes")
    verdict = result.results["utilization"]
    assert not verdict.ok and verdict.error is not None
    error_type, words = EXECUTION_REFUSAL[prometheus.name]
    assert "Prometheus rejected" in verdict.error and f"({error_type})" in verdict.error
    assert words in verdict.error


async def test_bad_label_names_are_reported(counted: tuple[PrometheusGateway, CountingTransport]) -> None:
    gateway, _ = counted
    result = await check(gateway, labels={"node": "node-name", "device": "device", "pod": "__pod"})
    assert not result.ok
    assert set(result.label_errors) == {"node", "pod"}
    assert "'node-name'" in result.label_errors["node"]


async def test_dcgm_preset_passes_with_a_warning_for_the_unreadable_sensor(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, _ = counted
    nvidia = OFFICIAL_PRESETS["nvidia-gpu"]
    result = await check_metrics(nvidia.labels, nvidia.metrics, gateway)
    assert result.ok, result
    assert {p.node for p in result.results["utilization"].sample} == {"gpu-1", "gpu-2"}
    assert "1 of 3 values look implausible" in result.results["temperature"].warnings[0]


def without_timestamps(readings: tuple[DeviceReading, ...]) -> list[DeviceReading]:
    return [DeviceReading(**{**reading.__dict__, "sampled_at": {}}) for reading in readings]


async def test_generic_readings_equal_what_the_exporter_emits(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, transport = counted
    device_type = DeviceType.model_validate(
        {
            "id": "lpu",
            "name": "LPU",
            "vendor": "HyperAccel",
            "kind": "custom",
            "resource_key": "hyperaccel.ai/lpu",
            "labels": LPU_LABELS,
            "metrics": LPU_METRICS,
        }
    )
    before = time.time()
    readings = await GenericFetcher().readings(device_type, gateway)
    assert without_timestamps(readings.devices) == [
        DeviceReading("lpu-a", "lpu0", 42.5, 8 * GiB, 16 * GiB, 61.0, None, "llm-0", "serving"),
        DeviceReading("lpu-a", "lpu1", 0.0, 0.0, 16 * GiB, 38.5, None, None, None),
        DeviceReading("lpu-b", "lpu0", 97.0, 1 * GiB, 16 * GiB, 79.0, None, None, None),
    ]
    assert readings.problems == ()
    assert all(abs(t - before) < 30 for r in readings.devices for t in r.sampled_at.values())
    assert set(readings.devices[0].sampled_at) == {
        "utilization",
        "memory_used",
        "memory_total",
        "temperature",
    }
    # One instant query per reported quantity, none per node or device.
    assert sorted(transport.queries) == sorted(device_type.metrics.queries().values())
    assert len(transport.queries) == 4


async def test_dcgm_preset_readings_are_normalised_for_both_exporter_generations(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, transport = counted
    nvidia = OFFICIAL_PRESETS["nvidia-gpu"]
    readings = await DcgmFetcher().readings(nvidia, gateway)
    assert without_timestamps(readings.devices) == [
        DeviceReading("gpu-1", "0", 87.0, 30000 * MiB, 81920 * MiB, 71.0, 245.5, "trainer-0", "ml"),
        DeviceReading("gpu-1", "1", 0.0, 0.0, 81920 * MiB, 33.0, 60.25, None, None),
        DeviceReading("gpu-2", "0", 12.0, 512 * MiB, 80512 * MiB, None, 71.0, None, None),
    ]
    assert len(transport.queries) == 5 and len(set(transport.queries)) == 5


async def test_furiosa_preset_averages_cores_and_reads_legacy_labels(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, transport = counted
    readings = await GenericFetcher().readings(OFFICIAL_PRESETS["furiosa-rngd"], gateway)
    assert without_timestamps(readings.devices) == [
        DeviceReading("npu-1", "npu0", 45.0, 12e9, 48e9, 55.0, 120.0, "vllm-0", "ai"),
        DeviceReading("npu-2", "npu1", 50.0, 1e9, 48e9, 66.0, 90.0, "old-0", "legacy"),
    ]
    assert len(transport.queries) == 6  # health too


async def test_rebellions_preset_reads_new_and_legacy_metric_names(
    counted: tuple[PrometheusGateway, CountingTransport],
) -> None:
    gateway, _ = counted
    readings = await GenericFetcher().readings(OFFICIAL_PRESETS["rebellions-atom"], gateway)
    assert without_timestamps(readings.devices) == [
        DeviceReading("atom-1", "rbln0", 33.0, 4e9, 16e9, 48.0, 70.0, None, None),
        DeviceReading("atom-2", "rbln1", 21.0, 2e9, 16e9, 52.0, 65.0, None, None),
    ]


async def test_several_series_per_device_warn(counted: tuple[PrometheusGateway, CountingTransport]) -> None:
    gateway, _ = counted
    doubled = 'lpu_utilization_percent or label_replace(lpu_utilization_percent, "copy", "1", "", "")'
    verdict = (await check(gateway, utilization=doubled)).results["utilization"]
    assert verdict.ok and verdict.series == 6
    assert "3 devices have more than one series (e.g. node=lpu-a, device=lpu0)" in verdict.warnings[0]


async def test_an_unreachable_prometheus_is_reported_per_metric_and_raised_by_readings() -> None:
    gateway = PrometheusGateway(f"http://127.0.0.1:{closed_port()}", timeout_seconds=2)
    try:
        result = await check(gateway)
        assert not result.ok
        assert all("could not be tried" in (v.error or "") for v in result.results.values())
        with pytest.raises(PrometheusUnavailable, match="cannot connect"):
            await GenericFetcher().readings(OFFICIAL_PRESETS["nvidia-gpu"], gateway)
    finally:
        await gateway.close()
