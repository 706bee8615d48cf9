"""The monitoring response bodies, compared byte for byte with the documented ones: the expected bodies
below were first written by the old hand-made `to_dict()` on the same objects, and have grown only by
the fields added since (a snapshot's age, its not-reporting nodes, a stale quantity's last value, a
problem's message code and params)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from nufi.api.schemas.monitoring import OverviewView, SnapshotView
from nufi.api.schemas.monitoring_range import RangeView
from nufi.devices.official.nvidia import PRESET as NVIDIA
from nufi.messages import Message
from nufi.monitoring.ranges.request import RangeRequest
from nufi.monitoring.ranges.result import RangeResult, RangeSeries
from nufi.monitoring.snapshots.attribution import PodHolding
from nufi.monitoring.snapshots.overview import Overview, OverviewRow
from nufi.monitoring.snapshots.snapshot import (
    DeviceEntry,
    MonitoringError,
    NodeEntry,
    NotReporting,
    Snapshot,
    StaleMetric,
    Summary,
)

NOW = 1_700_000_000.0
BUSY = DeviceEntry("0", 87.5, 31457280000.4, 85304115200.6, 71.0, 245.5, "trainer", "ml", health="ok")
SILENT = DeviceEntry("1")
SHARED = NodeEntry(
    "gpu-1",
    8,
    8,
    3,
    (PodHolding("ml", "trainer", 2), PodHolding("ml", "eval", 1)),
    "shared by 2 pods",
    (BUSY, SILENT),
)
UNREAD = NodeEntry("gpu-2", None, None, None, None, None, ())
STALE = StaleMetric("temperature", "gpu-1", "1", NOW - 3.4567, 3.4567, 3.0, 64.0)
POWER_DOWN = MonitoringError(
    "prometheus", "did not answer", metric="power", query="DCGM_FI_DEV_POWER_USAGE", node="gpu-1", device="0"
)
NO_CLUSTER = MonitoringError(
    "kubernetes", "Kubernetes is not configured", said=Message("kube.not_configured")
)
SNAPSHOT = Snapshot(
    "nvidia-gpu",
    NOW + 0.1234,
    Summary.of((SHARED, UNREAD)),
    (SHARED, UNREAD),
    (STALE,),
    (POWER_DOWN, NO_CLUSTER),
    (NotReporting("gpu-3", 4),),
    age_seconds=2.34567,
)
EMPTY = Snapshot("nvidia-gpu", NOW, Summary.of(()), (), (), ())
OVERVIEW = Overview(
    (
        OverviewRow(NVIDIA, SNAPSHOT, (MonitoringError("catalog", "extra"),)),
        OverviewRow(NVIDIA, None, (POWER_DOWN,)),
    )
)
SERIES = (
    RangeSeries("gpu-1", "0", ((NOW, 1.6), (NOW + 15, 2.4)), ((NOW, 1000.5),)),
    RangeSeries("gpu-2", None, (), None),
)
MEMORY = RangeResult("nvidia-gpu", RangeRequest("memory", NOW - 3600, NOW, 15.0), True, SERIES, (POWER_DOWN,))
UTILIZATION = RangeResult(
    "nvidia-gpu",
    RangeRequest("utilization", NOW - 60.5, NOW, 0.5, by="node", node="gpu-1", device="0"),
    False,
    SERIES,
)


def written(model: BaseModel) -> str:
    return model.model_dump_json()


def as_before(body: dict[str, Any]) -> str:
    """The bytes the API wrote for `body`: compact JSON, keys in order, UTF-8 as is."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


SNAPSHOT_BODY = {
    "device_type": "nvidia-gpu",
    "time": "2023-11-14T22:13:20.123Z",
    "age_seconds": 2.346,
    "summary": {
        "nodes": 2,
        "devices": 2,
        "avg_utilization_percent": 87.5,
        "memory_used_bytes": 31457280000,
        "memory_total_bytes": 85304115201,
        "max_temperature_celsius": 71.0,
        "power_watts": 245.5,
    },
    "nodes": [
        {
            "node": "gpu-1",
            "capacity": 8,
            "allocatable": 8,
            "allocated": 3,
            "pods": [
                {"namespace": "ml", "pod": "trainer", "devices": 2},
                {"namespace": "ml", "pod": "eval", "devices": 1},
            ],
            "workload": "shared by 2 pods",
            "devices": [
                {
                    "device": "0",
                    "utilization_percent": 87.5,
                    "memory_used_bytes": 31457280000,
                    "memory_total_bytes": 85304115201,
                    "temperature_celsius": 71.0,
                    "power_watts": 245.5,
                    "health": "ok",
                    "pod": "trainer",
                    "namespace": "ml",
                },
                {
                    "device": "1",
                    "utilization_percent": None,
                    "memory_used_bytes": None,
                    "memory_total_bytes": None,
                    "temperature_celsius": None,
                    "power_watts": None,
                    "health": "unknown",
                    "pod": None,
                    "namespace": None,
                },
            ],
        },
        {
            "node": "gpu-2",
            "capacity": None,
            "allocatable": None,
            "allocated": None,
            "pods": None,
            "workload": None,
            "devices": [],
        },
    ],
    "stale": [
        {
            "metric": "temperature",
            "node": "gpu-1",
            "device": "1",
            "last_seen": "2023-11-14T22:13:16.543Z",
            "silent_seconds": 3.457,
            "last_value": 64.0,
            "reason": "no sample for 3.5 s, more than three scrape intervals (3 s); its exporter "
            "or scrape target may be down",
        }
    ],
    "not_reporting": [{"node": "gpu-3", "capacity": 4}],
    "errors": [
        {
            "source": "prometheus",
            "metric": "power",
            "node": "gpu-1",
            "device": "0",
            "query": "DCGM_FI_DEV_POWER_USAGE",
            "message": "did not answer",
            "code": None,
            "params": None,
        },
        {
            "source": "kubernetes",
            "metric": None,
            "node": None,
            "device": None,
            "query": None,
            "message": "Kubernetes is not configured",
            "code": "kube.not_configured",
            "params": {},
        },
    ],
}

EMPTY_BODY = {
    "device_type": "nvidia-gpu",
    "time": "2023-11-14T22:13:20.000Z",
    "age_seconds": 0.0,
    "summary": {
        "nodes": 0,
        "devices": 0,
        "avg_utilization_percent": None,
        "memory_used_bytes": None,
        "memory_total_bytes": None,
        "max_temperature_celsius": None,
        "power_watts": None,
    },
    "nodes": [],
    "stale": [],
    "not_reporting": [],
    "errors": [],
}

OVERVIEW_BODY = {
    "items": [
        {
            "device_type": "nvidia-gpu",
            "name": "NVIDIA GPU",
            "vendor": "NVIDIA",
            "kind": "official",
            "resource_key": "nvidia.com/gpu",
            "time": "2023-11-14T22:13:20.123Z",
            "summary": {
                "nodes": 2,
                "devices": 2,
                "avg_utilization_percent": 87.5,
                "memory_used_bytes": 31457280000,
                "memory_total_bytes": 85304115201,
                "max_temperature_celsius": 71.0,
                "power_watts": 245.5,
            },
            "age_seconds": 2.346,
            "stale_count": 1,
            "not_reporting_count": 1,
            "errors": [
                {
                    "source": "prometheus",
                    "metric": "power",
                    "node": "gpu-1",
                    "device": "0",
                    "query": "DCGM_FI_DEV_POWER_USAGE",
                    "message": "did not answer",
                    "code": None,
                    "params": None,
                },
                {
                    "source": "kubernetes",
                    "metric": None,
                    "node": None,
                    "device": None,
                    "query": None,
                    "message": "Kubernetes is not configured",
                    "code": "kube.not_configured",
                    "params": {},
                },
                {
                    "source": "catalog",
                    "metric": None,
                    "node": None,
                    "device": None,
                    "query": None,
                    "message": "extra",
                    "code": None,
                    "params": None,
                },
            ],
        },
        {
            "device_type": "nvidia-gpu",
            "name": "NVIDIA GPU",
            "vendor": "NVIDIA",
            "kind": "official",
            "resource_key": "nvidia.com/gpu",
            "time": None,
            "summary": None,
            "age_seconds": None,
            "stale_count": 0,
            "not_reporting_count": 0,
            "errors": [
                {
                    "source": "prometheus",
                    "metric": "power",
                    "node": "gpu-1",
                    "device": "0",
                    "query": "DCGM_FI_DEV_POWER_USAGE",
                    "message": "did not answer",
                    "code": None,
                    "params": None,
                }
            ],
        },
    ]
}

MEMORY_BODY = {
    "device_type": "nvidia-gpu",
    "metric": "memory",
    "unit": "bytes",
    "reported": True,
    "by": "device",
    "node": None,
    "device": None,
    "start": "2023-11-14T21:13:20.000Z",
    "end": "2023-11-14T22:13:20.000Z",
    "step_seconds": 15.0,
    "series": [
        {
            "node": "gpu-1",
            "device": "0",
            "used": [[1700000000.0, 2], [1700000015.0, 2]],
            "total": [[1700000000.0, 1000]],
        },
        {"node": "gpu-2", "device": None, "used": [], "total": []},
    ],
    "errors": [
        {
            "source": "prometheus",
            "metric": "power",
            "node": "gpu-1",
            "device": "0",
            "query": "DCGM_FI_DEV_POWER_USAGE",
            "message": "did not answer",
            "code": None,
            "params": None,
        }
    ],
}

UTILIZATION_BODY = {
    "device_type": "nvidia-gpu",
    "metric": "utilization",
    "unit": "percent",
    "reported": False,
    "by": "node",
    "node": "gpu-1",
    "device": "0",
    "start": "2023-11-14T22:12:19.500Z",
    "end": "2023-11-14T22:13:20.000Z",
    "step_seconds": 0.5,
    "series": [
        {"node": "gpu-1", "device": "0", "values": [[1700000000.0, 1.6], [1700000015.0, 2.4]]},
        {"node": "gpu-2", "device": None, "values": []},
    ],
    "errors": [],
}


def test_a_snapshot_is_written_as_before() -> None:
    assert written(SnapshotView.of(SNAPSHOT)) == as_before(SNAPSHOT_BODY)


def test_an_empty_snapshot_is_written_as_before() -> None:
    assert written(SnapshotView.of(EMPTY)) == as_before(EMPTY_BODY)


def test_the_overview_is_written_as_before() -> None:
    assert written(OverviewView.of(OVERVIEW)) == as_before(OVERVIEW_BODY)


def test_a_memory_range_is_written_as_before() -> None:
    assert written(RangeView.of(MEMORY)) == as_before(MEMORY_BODY)


def test_a_utilization_range_per_node_is_written_as_before() -> None:
    assert written(RangeView.of(UTILIZATION)) == as_before(UTILIZATION_BODY)


def test_python_mode_dumps_agree_with_json() -> None:
    # FastAPI writes JSON bytes itself, or Python values when a route brings its own response class.
    for view, body in ((SnapshotView.of(SNAPSHOT), SNAPSHOT_BODY), (RangeView.of(MEMORY), MEMORY_BODY)):
        assert view.model_dump(mode="json") == body


def test_the_schema_names_every_health_and_error_source() -> None:
    schema = SnapshotView.model_json_schema()["$defs"]
    assert schema["DeviceView"]["properties"]["health"]["enum"] == ["ok", "unhealthy", "unknown"]
    sources = schema["MonitoringErrorView"]["properties"]["source"]["enum"]
    assert sources == ["prometheus", "kubernetes", "catalog", "plausibility"]


def test_a_plausibility_problem_names_its_device() -> None:
    problem = MonitoringError(
        "plausibility", "device 0 on node gpu-1: ...", metric="temperature", node="gpu-1", device="0"
    )
    body = SnapshotView.of(Snapshot("nvidia-gpu", NOW, EMPTY.summary, (), (), (problem,))).model_dump(
        mode="json"
    )
    assert body["errors"] == [
        {
            "source": "plausibility",
            "metric": "temperature",
            "node": "gpu-1",
            "device": "0",
            "query": None,
            "message": "device 0 on node gpu-1: ...",
            "code": None,
            "params": None,
        }
    ]
