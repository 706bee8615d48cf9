"""A custom device type and a range request parser at a fixed now, shared by the range tests."""

from __future__ import annotations

from typing import Any

from nufi.devices.spec import DeviceType
from nufi.monitoring.ranges.request import RangeQuery, RangeRequest, parse_range_request

NOW = 1_700_000_000.0
LPU = DeviceType.model_validate(
    {
        "id": "lpu",
        "name": "LPU",
        "vendor": "HyperAccel",
        "kind": "custom",
        "resource_key": "hyperaccel.ai/lpu",
        "labels": {"node": "node", "device": "device"},
        "metrics": {
            "utilization": "lpu_utilization_percent",
            "memory": {"used": "lpu_memory_used_bytes", "total": "lpu_memory_total_bytes"},
            "temperature": "lpu_temperature_celsius",
        },
    }
)


def parse(**values: Any) -> RangeRequest:
    return parse_range_request(
        RangeQuery(**({"metric": "utilization"} | values)), now=NOW, finest_step_seconds=15.0
    )
