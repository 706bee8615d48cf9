"""Joining query results by (node, device) and normalising them, with hand-built results."""

from __future__ import annotations

import math

from nufi.devices.official.nvidia import PRESET as NVIDIA
from nufi.devices.official.nvidia import DcgmFetcher
from nufi.devices.readings import DeviceReading, assemble_readings
from nufi.devices.spec import LabelsDraft, MetricKey, MetricsDraft
from nufi.errors import NufiError
from nufi.prom import PrometheusQueryRejected, QueryResult, Sample

LABELS = LabelsDraft(node="node", device="device", pod="pod", namespace="namespace")
T = 1_700_000_000.0


def vector(*rows: tuple[dict[str, str], float]) -> QueryResult:
    return QueryResult(
        "vector", samples=tuple(Sample(metric=labels, timestamp=T, value=v) for labels, v in rows)
    )


def at(node: str, device: str, **extra: str) -> dict[str, str]:
    return {"node": node, "device": device, **extra}


def lpu_metrics(**memory: str) -> MetricsDraft:
    return MetricsDraft.model_validate(
        {
            "utilization": "util",
            "memory": {"mode": "used_total", "used": "used", "total": "total", **memory},
            "temperature": "temp",
        }
    )


def test_results_are_joined_per_device_and_normalised() -> None:
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((at("n1", "d0", pod="p", namespace="ns"), 40.0), (at("n1", "d1"), 0.0)),
        "memory_used": vector((at("n1", "d0"), 2.0), (at("n1", "d1"), 0.0)),
        "memory_total": vector((at("n1", "d0"), 16.0), (at("n1", "d1"), 16.0)),
        "temperature": vector((at("n1", "d0"), 61.5)),
    }
    readings = assemble_readings(LABELS, lpu_metrics(unit="GiB"), outcomes, queried_at=T)
    d0, d1 = readings.devices
    assert (d0.node, d0.device, d1.device) == ("n1", "d0", "d1")
    assert d0.utilization_percent == 40.0
    assert d0.memory_used_bytes == 2 * 1024**3
    assert d0.memory_total_bytes == 16 * 1024**3
    assert d0.temperature_celsius == 61.5
    assert (d0.pod, d0.namespace) == ("p", "ns")
    # Reported zeros stay zeros; quantities not reported (power) or absent (d1's temperature) are None.
    assert d1.utilization_percent == 0.0 and d1.memory_used_bytes == 0.0
    assert d1.temperature_celsius is None and d0.power_watts is None and d1.pod is None
    assert d0.sampled_at == {"utilization": T, "memory_used": T, "memory_total": T, "temperature": T}
    assert readings.problems == ()


def test_used_free_in_mib_gives_total_as_used_plus_free_in_bytes() -> None:
    metrics = MetricsDraft.model_validate(
        {"utilization": "u", "memory": {"mode": "used_free", "used": "used", "free": "free", "unit": "MiB"}}
    )
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((at("n", "0"), 5.0)),
        "memory_used": vector((at("n", "0"), 1024.0), (at("n", "1"), 10.0)),
        "memory_free": vector((at("n", "0"), 80896.0)),
    }
    first, second = assemble_readings(LABELS, metrics, outcomes).devices
    assert first.memory_used_bytes == 1024 * 2**20
    assert first.memory_total_bytes == (1024 + 80896) * 2**20
    # Without a free value the total is unknown, not equal to used.
    assert second.memory_used_bytes == 10 * 2**20 and second.memory_total_bytes is None


def test_several_series_for_one_device_take_the_highest_and_keep_pod_from_one_series() -> None:
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector(
            (at("n", "d"), 10.0),
            (at("n", "d", pod="b", namespace="ns-b"), 30.0),
            (at("n", "d", pod="a", namespace="ns-a"), 20.0),
        ),
    }
    metrics = MetricsDraft(utilization="u")
    (reading,) = assemble_readings(LABELS, metrics, outcomes).devices
    assert reading.utilization_percent == 30.0
    assert (reading.pod, reading.namespace) in {("a", "ns-a"), ("b", "ns-b")}


def test_series_without_node_or_device_are_left_out_and_reported() -> None:
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((at("n", "d"), 1.0), ({"node": "n"}, 2.0), ({"device": "d"}, 3.0)),
    }
    readings = assemble_readings(LABELS, MetricsDraft(utilization="u"), outcomes)
    assert [r.utilization_percent for r in readings.devices] == [1.0]
    (problem,) = [p for p in readings.problems if p.metric == "utilization"]
    assert "2 series" in problem.message and "max by (node, device) (u)" in problem.message


def test_a_failed_query_spoils_only_its_quantity() -> None:
    rejected = PrometheusQueryRejected(
        code="prometheus.query_rejected", query="temp", error_type="bad_data", error="parse error"
    )
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((at("n", "d"), 1.0)),
        "memory_used": vector((at("n", "d"), 1.0)),
        "memory_total": QueryResult("scalar", samples=(Sample({}, T, 4.0),)),
        "temperature": rejected,
    }
    readings = assemble_readings(LABELS, lpu_metrics(), outcomes)
    (reading,) = readings.devices
    assert reading.utilization_percent == 1.0 and reading.temperature_celsius is None
    assert reading.memory_total_bytes is None
    assert {p.metric for p in readings.problems} == {"temperature", "memory_total"}
    assert "scalar" in next(p for p in readings.problems if p.metric == "memory_total").message


def test_non_finite_values_are_not_readings() -> None:
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((at("n", "a"), math.nan), (at("n", "b"), math.inf), (at("n", "c"), 7.0)),
    }
    readings = assemble_readings(LABELS, MetricsDraft(utilization="u"), outcomes)
    assert [(r.device, r.utilization_percent) for r in readings.devices] == [
        ("a", None),
        ("b", None),
        ("c", 7.0),
    ]
    assert readings.devices[0].sampled_at == {}


def test_dcgm_blank_sentinels_are_dropped_by_the_nvidia_fetcher_only() -> None:
    labels = {"hostname": "gpu-1", "gpu": "0"}
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((labels, 55.0)),
        "memory_used": vector((labels, 100.0)),
        "memory_free": vector((labels, 900.0)),
        "temperature": vector((labels, 9223372036854775794.0)),
        "power": vector((labels, 140737488355328.0)),
    }
    fetcher = DcgmFetcher()
    (reading,) = assemble_readings(
        NVIDIA.labels, NVIDIA.metrics, outcomes, label_value=fetcher.label_value, usable=fetcher.usable
    ).devices
    assert reading.temperature_celsius is None and reading.power_watts is None
    assert reading.utilization_percent == 55.0 and reading.memory_total_bytes == 1000 * 2**20
    (plain,) = assemble_readings(NVIDIA.labels, NVIDIA.metrics, outcomes).devices
    assert plain.temperature_celsius == 9223372036854775794.0


def test_each_quantity_carries_the_timestamp_of_its_sample() -> None:
    outcomes: dict[MetricKey, QueryResult | NufiError] = {"utilization": vector((at("n", "d"), 1.0))}
    (reading,) = assemble_readings(LABELS, MetricsDraft(utilization="u"), outcomes).devices
    assert reading.sampled_at == {"utilization": T}


def test_health_is_read_per_device_and_the_worst_series_wins() -> None:
    metrics = MetricsDraft.model_validate({"utilization": "util", "health": "ok"})
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((at("n1", "d0"), 10.0)),
        "health": vector((at("n1", "d0"), 1.0), (at("n1", "d0", pod="p"), 0.0), (at("n1", "d1"), 1.0)),
    }
    d0, d1 = assemble_readings(LABELS, metrics, outcomes, queried_at=T).devices
    assert (d0.health, d1.health) == (0.0, 1.0)
    assert d0.sampled_at == {"utilization": T, "health": T}


def test_a_device_reporting_only_its_health_is_listed_with_null_readings() -> None:
    metrics = lpu_metrics()
    metrics = metrics.model_copy(update={"power": "power", "health": "ok"})
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": vector((at("n1", "d0"), 10.0)),
        "memory_used": vector(),
        "memory_total": vector(),
        "temperature": vector(),
        "power": vector(),
        "health": vector((at("n1", "d0"), 1.0), (at("n2", "d7"), 0.0)),
    }
    readings = assemble_readings(LABELS, metrics, outcomes, queried_at=T)
    assert [(d.node, d.device) for d in readings.devices] == [("n1", "d0"), ("n2", "d7")]
    only_health = readings.devices[1]
    assert only_health.health == 0.0
    assert only_health.utilization_percent is None and only_health.temperature_celsius is None
    assert only_health.memory_used_bytes is None and only_health.memory_total_bytes is None
    assert only_health.power_watts is None
    assert readings.problems == ()


def test_a_reading_is_built_positionally_its_node_first_then_the_devices_values() -> None:
    # Fetcher plugins build readings positionally: the shared device values must not move the node.
    reading = DeviceReading("n1", "d0", 40.0, 1.0, 2.0, 55.0, 300.0, "p", "ns", 1.0)
    assert (reading.node, reading.device, reading.temperature_celsius, reading.health) == (
        "n1",
        "d0",
        55.0,
        1.0,
    )
    assert reading.values() == {
        "device": "d0",
        "utilization_percent": 40.0,
        "memory_used_bytes": 1.0,
        "memory_total_bytes": 2.0,
        "temperature_celsius": 55.0,
        "power_watts": 300.0,
        "pod": "p",
        "namespace": "ns",
    }
