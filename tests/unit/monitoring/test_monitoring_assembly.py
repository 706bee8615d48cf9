"""Snapshot assembly in memory: staleness, nulls that stay null, inventory and attribution."""

from __future__ import annotations

from typing import Any

from nufi.devices.capacity import Inventory, NodeInventory
from nufi.devices.official.nvidia import PRESET as NVIDIA
from nufi.devices.readings import DeviceReading, MetricProblem, Readings
from nufi.devices.spec import DeviceType, MetricKey
from nufi.messages import Message
from nufi.monitoring.snapshots.assembly import assemble_snapshot
from nufi.monitoring.snapshots.attribution import PodHolding
from nufi.monitoring.snapshots.cluster_view import ClusterView
from nufi.monitoring.snapshots.snapshot import MonitoringError
from support.bodies import as_json

NOW = 1_700_000_000.0
GiB = 1024**3
LPU = DeviceType.model_validate(
    {
        "id": "lpu",
        "name": "LPU",
        "vendor": "HyperAccel",
        "kind": "custom",
        "resource_key": "hyperaccel.ai/lpu",
        "labels": {"node": "node", "device": "device", "pod": "pod", "namespace": "namespace"},
        "metrics": {
            "utilization": "lpu_utilization_percent",
            "memory": {"used": "lpu_memory_used_bytes", "total": "lpu_memory_total_bytes"},
            "temperature": "lpu_temperature_celsius",
        },
    }
)
LPU_METRICS: tuple[MetricKey, ...] = ("utilization", "memory_used", "memory_total", "temperature")


def reading(
    node: str, device: str, *, age: float = 0.5, silent: dict[str, float] | None = None, **values: Any
) -> DeviceReading:
    ages = {metric: age for metric in LPU_METRICS} | (silent or {})
    defaults = {"utilization_percent": 50.0, "memory_used_bytes": 2 * GiB, "memory_total_bytes": 16 * GiB}
    return DeviceReading(
        node=node,
        device=device,
        temperature_celsius=values.pop("temperature_celsius", 60.0),
        sampled_at={metric: NOW - seconds for metric, seconds in ages.items()},  # type: ignore[misc]
        **(defaults | values),
    )


def cluster(nodes: dict[str, int], holdings: dict[str, list[PodHolding]] | None = None) -> ClusterView:
    allocated = {node: sum(h.devices for h in held) for node, held in (holdings or {}).items()}
    inventory = Inventory(
        "hyperaccel.ai/lpu",
        tuple(NodeInventory(n, c, c, allocated.get(n, 0)) for n, c in sorted(nodes.items())),
    )
    return ClusterView(inventory, {n: tuple(h) for n, h in (holdings or {}).items()})


def snapshot(
    devices: list[DeviceReading], view: ClusterView | None = None, device_type: DeviceType = LPU, **kw: Any
) -> Any:
    return assemble_snapshot(
        device_type, Readings(tuple(devices)), time=NOW, stale_after_seconds=3.0, cluster=view, **kw
    )


def test_the_shape_is_the_documented_one() -> None:
    body = as_json(snapshot([reading("n1", "lpu0")], cluster({"n1": 1})))
    assert list(body) == [
        "device_type",
        "time",
        "age_seconds",
        "summary",
        "nodes",
        "stale",
        "not_reporting",
        "errors",
    ]
    assert list(body["summary"]) == [
        "nodes",
        "devices",
        "avg_utilization_percent",
        "memory_used_bytes",
        "memory_total_bytes",
        "max_temperature_celsius",
        "power_watts",
    ]
    node = body["nodes"][0]
    assert list(node) == ["node", "capacity", "allocatable", "allocated", "pods", "workload", "devices"]
    assert list(node["devices"][0]) == [
        "device",
        "utilization_percent",
        "memory_used_bytes",
        "memory_total_bytes",
        "temperature_celsius",
        "power_watts",
        "health",
        "pod",
        "namespace",
    ]
    assert body["time"] == "2023-11-14T22:13:20.000Z"


def test_a_metric_the_type_does_not_report_is_null_never_zero() -> None:
    body = as_json(snapshot([reading("n1", "lpu0"), reading("n1", "lpu1")]))
    assert body["summary"]["power_watts"] is None
    assert all(d["power_watts"] is None for d in body["nodes"][0]["devices"])


def test_summary_averages_utilization_sums_memory_and_takes_the_hottest() -> None:
    devices = [
        reading("n1", "lpu0", utilization_percent=10.0, temperature_celsius=40.0),
        reading("n1", "lpu1", utilization_percent=30.0, temperature_celsius=71.5),
        reading("n2", "lpu0", utilization_percent=None, temperature_celsius=50.0),
    ]
    summary = as_json(snapshot(devices))["summary"]
    assert summary["nodes"] == 2 and summary["devices"] == 3
    assert summary["avg_utilization_percent"] == 20.0  # the device without a value is not a 0
    assert summary["memory_used_bytes"] == 6 * GiB and summary["memory_total_bytes"] == 48 * GiB
    assert summary["max_temperature_celsius"] == 71.5


def test_a_silent_metric_is_listed_as_stale_and_its_value_dropped() -> None:
    devices = [
        reading("n1", "lpu0", silent={"temperature": 3.5}),
        reading("n1", "lpu1", silent={"utilization": 3.0}),
    ]
    body = as_json(snapshot(devices))
    assert [(s["metric"], s["node"], s["device"]) for s in body["stale"]] == [("temperature", "n1", "lpu0")]
    stale = body["stale"][0]
    assert stale["silent_seconds"] == 3.5 and stale["last_seen"] == "2023-11-14T22:13:16.500Z"
    assert "more than three scrape intervals (3 s)" in stale["reason"]
    lpu0, lpu1 = body["nodes"][0]["devices"]
    assert lpu0["temperature_celsius"] is None and lpu0["utilization_percent"] == 50.0
    assert lpu1["utilization_percent"] == 50.0  # exactly at the limit is not stale yet
    assert body["summary"]["max_temperature_celsius"] == 60.0


def test_used_and_free_both_feed_the_total() -> None:
    def gpu(silent: MetricKey) -> DeviceReading:
        metrics: tuple[MetricKey, ...] = ("utilization", "memory_used", "memory_free", "temperature", "power")
        return DeviceReading(
            node="g1",
            device="0",
            memory_used_bytes=1.0,
            memory_total_bytes=3.0,
            sampled_at={m: NOW - (10.0 if m == silent else 0.0) for m in metrics},
        )

    for silent in ("memory_used", "memory_free"):
        device = as_json(snapshot([gpu(silent)], device_type=NVIDIA))["nodes"][0]["devices"][0]
        assert device["memory_total_bytes"] is None, silent
    assert (
        as_json(snapshot([gpu("power")], device_type=NVIDIA))["nodes"][0]["devices"][0]["memory_total_bytes"]
        == 3
    )


def test_nodes_come_from_the_cluster_and_from_the_readings() -> None:
    view = cluster({"n1": 2, "idle": 4, "zero": 0})
    body = as_json(snapshot([reading("n1", "lpu0"), reading("unknown", "lpu0")], view))
    rows = {
        n["node"]: (n["capacity"], n["allocatable"], n["allocated"], len(n["devices"])) for n in body["nodes"]
    }
    # A node advertising 0 devices with nothing on it is left out; one the cluster does not list has 0.
    assert rows == {"n1": (2, 2, 0, 1), "idle": (4, 4, 0, 0), "unknown": (0, 0, 0, 1)}
    assert [n["node"] for n in body["nodes"]] == sorted(rows)


def test_without_the_cluster_counts_and_pods_are_null() -> None:
    error = MonitoringError("kubernetes", "cannot list nodes")
    body = as_json(snapshot([reading("n1", "lpu0")], None, errors=[error]))
    node = body["nodes"][0]
    assert (node["capacity"], node["allocatable"], node["allocated"], node["pods"], node["workload"]) == (
        None,
    ) * 5
    assert body["errors"] == [
        {
            "source": "kubernetes",
            "metric": None,
            "node": None,
            "device": None,
            "query": None,
            "message": "cannot list nodes",
            "code": None,
            "params": None,
        }
    ]


def test_the_cluster_names_the_pod_of_every_device_when_it_holds_them_all() -> None:
    solo = PodHolding("serving", "llm-0", 2)
    body = as_json(
        snapshot([reading("n1", "lpu0"), reading("n1", "lpu1")], cluster({"n1": 2}, {"n1": [solo]}))
    )
    node = body["nodes"][0]
    assert node["workload"] == "serving/llm-0" and node["pods"] == [
        {"namespace": "serving", "pod": "llm-0", "devices": 2}
    ]
    assert [(d["pod"], d["namespace"]) for d in node["devices"]] == [("llm-0", "serving")] * 2


def test_a_pod_holding_part_of_a_node_is_named_only_at_node_level() -> None:
    partial = PodHolding("serving", "llm-0", 1)
    body = as_json(
        snapshot([reading("n1", "lpu0"), reading("n1", "lpu1")], cluster({"n1": 2}, {"n1": [partial]}))
    )
    node = body["nodes"][0]
    assert node["workload"] == "serving/llm-0"
    assert [d["pod"] for d in node["devices"]] == [None, None]


def test_shared_nodes_say_so() -> None:
    pods = [PodHolding("a", "x", 1), PodHolding("b", "y", 1)]
    node = as_json(
        snapshot([reading("n1", "lpu0"), reading("n1", "lpu1")], cluster({"n1": 2}, {"n1": pods}))
    )["nodes"][0]
    assert node["workload"] == "shared by 2 pods" and [d["pod"] for d in node["devices"]] == [None, None]


def test_the_exporters_attribution_wins_and_idle_devices_stay_idle() -> None:
    solo = PodHolding("serving", "llm-0", 2)
    devices = [reading("n1", "lpu0", pod="trainer", namespace="ml"), reading("n1", "lpu1")]
    node = as_json(snapshot(devices, cluster({"n1": 2}, {"n1": [solo]})))["nodes"][0]
    assert [(d["pod"], d["namespace"]) for d in node["devices"]] == [("trainer", "ml"), (None, None)]


def test_reading_problems_become_errors_naming_the_metric() -> None:
    problem = MetricProblem("temperature", "lpu_temperature_celsius", "Prometheus rejected the query")
    readings = Readings((reading("n1", "lpu0"),), problems=(problem,))
    body = as_json(assemble_snapshot(LPU, readings, time=NOW, stale_after_seconds=3.0, cluster=None))
    assert body["errors"] == [
        {
            "source": "prometheus",
            "metric": "temperature",
            "node": None,
            "device": None,
            "query": "lpu_temperature_celsius",
            "message": "Prometheus rejected the query",
            "code": None,
            "params": None,
        }
    ]


def test_bytes_are_whole_numbers() -> None:
    device = as_json(snapshot([reading("n1", "lpu0", memory_used_bytes=1.6)]))["nodes"][0]["devices"][0]
    assert device["memory_used_bytes"] == 2 and isinstance(device["memory_total_bytes"], int)


HEALTHY_LPU = LPU.model_copy(update={"metrics": LPU.metrics.model_copy(update={"health": "lpu_healthy"})})


def health_of(value: float | None, *, age: float = 0.5) -> str:
    sampled = {} if value is None else {"health": age}
    device = reading("n1", "lpu0", health=value, silent=sampled)
    entry = as_json(snapshot([device], device_type=HEALTHY_LPU))["nodes"][0]["devices"][0]
    assert isinstance(entry["health"], str)
    return entry["health"]


def test_health_is_ok_unhealthy_or_unknown() -> None:
    assert health_of(1.0) == "ok"
    assert health_of(0.0) == "unhealthy"
    assert health_of(None) == "unknown"  # no health sample
    assert health_of(0.0, age=3.5) == "unknown"  # a stale one
    assert health_of(0.5) == "unknown"  # neither 1 nor 0


def test_a_type_without_health_says_unknown_for_every_device() -> None:
    body = as_json(snapshot([reading("n1", "lpu0"), reading("n1", "lpu1")]))
    assert {d["health"] for d in body["nodes"][0]["devices"]} == {"unknown"}


def test_a_stale_health_is_listed_as_stale() -> None:
    body = as_json(
        snapshot([reading("n1", "lpu0", health=1.0, silent={"health": 9.0})], device_type=HEALTHY_LPU)
    )
    assert [(s["metric"], s["device"]) for s in body["stale"]] == [("health", "lpu0")]


def test_a_device_reporting_only_its_health_is_listed_with_null_readings() -> None:
    only = DeviceReading(node="n2", device="lpu7", health=0.0, sampled_at={"health": NOW})
    body = as_json(snapshot([reading("n1", "lpu0"), only], device_type=HEALTHY_LPU))
    n2 = body["nodes"][1]
    assert n2["node"] == "n2"
    assert n2["devices"] == [
        {
            "device": "lpu7",
            "utilization_percent": None,
            "memory_used_bytes": None,
            "memory_total_bytes": None,
            "temperature_celsius": None,
            "power_watts": None,
            "health": "unhealthy",
            "pod": None,
            "namespace": None,
        }
    ]
    assert body["summary"]["devices"] == 2 and body["errors"] == []


def test_implausible_values_are_null_and_named_in_the_errors() -> None:
    devices = [
        reading("n1", "lpu0", temperature_celsius=54000.0),
        reading("n1", "lpu1", memory_used_bytes=20 * GiB),
        reading("n2", "lpu0", utilization_percent=250.0, power_watts=-3.0),
        reading("n2", "lpu1", temperature_celsius=70.0),
    ]
    body = as_json(snapshot(devices))
    lpu0, lpu1 = body["nodes"][0]["devices"]
    assert lpu0["temperature_celsius"] is None and lpu0["utilization_percent"] == 50.0
    assert lpu1["memory_used_bytes"] is None and lpu1["memory_total_bytes"] is None
    hot = body["nodes"][1]["devices"][0]
    assert hot["utilization_percent"] is None and hot["power_watts"] is None
    # Nothing implausible reaches the summary: the hottest device is the one at 70 °C.
    assert body["summary"]["max_temperature_celsius"] == 70.0
    assert body["summary"]["memory_used_bytes"] == 6 * GiB
    named = [(e["source"], e["metric"], e["node"], e["device"], e["query"]) for e in body["errors"]]
    assert named == [
        ("plausibility", "temperature", "n1", "lpu0", "lpu_temperature_celsius"),
        ("plausibility", "memory_used", "n1", "lpu1", "lpu_memory_used_bytes"),
        ("plausibility", "utilization", "n2", "lpu0", "lpu_utilization_percent"),
        ("plausibility", "power", "n2", "lpu0", None),
    ]
    messages = [e["message"] for e in body["errors"]]
    assert "temperature 54000 °C is outside -40 to 150 °C" in messages[0]
    assert "device lpu0 on node n1" in messages[0]
    assert f"memory used {20 * GiB} bytes is more than the total {16 * GiB} bytes" in messages[1]
    assert "utilization 250 %" in messages[2] and "power -3 W is negative" in messages[3]


def test_a_stale_value_is_reported_stale_not_implausible() -> None:
    body = as_json(
        snapshot([reading("n1", "lpu0", temperature_celsius=54000.0, silent={"temperature": 9.0})])
    )
    assert [s["metric"] for s in body["stale"]] == ["temperature"]
    assert body["errors"] == []


def test_a_reading_problem_with_a_message_keeps_its_code() -> None:
    said = Message("monitoring.series_unplaced", {"count": 2, "node_label": "host"})
    problem = MetricProblem("temperature", "lpu_temperature_celsius", said)
    readings = Readings((reading("n1", "lpu0"),), problems=(problem,))
    (error,) = assemble_snapshot(LPU, readings, time=NOW, stale_after_seconds=3.0, cluster=None).errors
    assert (error.code, error.params) == ("monitoring.series_unplaced", {"count": 2, "node_label": "host"})
    assert error.message == "2 series lack the label 'host' and were left out"
