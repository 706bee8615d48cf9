"""A partitioned RNGD card (interop-facts §3.3): its device-wise series once for the whole card and
again per partition with the pod's labels; readings keep one device with the card's value and a pod."""

from __future__ import annotations

from nufi.devices.official.furiosa import PRESET
from nufi.devices.readings import QueryOutcome, assemble_readings
from nufi.devices.spec import MetricKey
from nufi.prom import QueryResult, Sample

CARD = {"hostname": "n1", "device": "npu0", "arch": "rngd"}


def _device_wise(value: float) -> QueryResult:
    whole = Sample({**CARD, "core": "0-7"}, 1.0, value)
    parts = [
        Sample({**CARD, "core": span, "pod": pod, "namespace": "jobs"}, 1.0, value)
        for span, pod in (("0-3", "a"), ("4-7", "b"))
    ]
    other = Sample({"hostname": "n1", "device": "npu1", "core": "0-7"}, 1.0, value / 2)
    return QueryResult("vector", (whole, *parts, other))


def test_a_partitioned_card_is_one_device_with_the_card_value_and_a_partition_pod() -> None:
    outcomes: dict[MetricKey, QueryOutcome] = {
        "utilization": QueryResult("vector", (Sample({"hostname": "n1", "device": "npu0"}, 1.0, 40.0),)),
        "memory_used": _device_wise(12e9),
        "memory_total": _device_wise(48e9),
        "temperature": _device_wise(48.5),
        "power": _device_wise(120.0),
    }
    readings = assemble_readings(PRESET.labels, PRESET.metrics, outcomes)
    assert [(d.node, d.device) for d in readings.devices] == [("n1", "npu0"), ("n1", "npu1")]
    card = readings.devices[0]
    assert (card.temperature_celsius, card.power_watts, card.memory_used_bytes) == (48.5, 120.0, 12e9)
    assert (card.pod, card.namespace) == ("a", "jobs")
    assert readings.devices[1].pod is None


def test_utilization_is_the_mean_of_all_cores_of_a_card() -> None:
    utilization = PRESET.metrics.utilization
    assert utilization.startswith("avg by (hostname, device) (")
    assert '"kubernetes_node_name"' in utilization and "without" not in utilization


def test_health_is_the_alive_gauge() -> None:
    assert PRESET.metrics.health is not None
    assert PRESET.metrics.health.startswith("label_replace(") and "furiosa_npu_alive" in PRESET.metrics.health
