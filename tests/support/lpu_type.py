"""The HyperAccel LPU as a custom device type: the labels and metric expressions of the mock exporter.

Constants are shared, so callers that change a copy take a `copy.deepcopy` first.
"""

from __future__ import annotations

import copy
from typing import Any

LPU_RESOURCE_KEY = "hyperaccel.ai/lpu"
LPU_LABELS: dict[str, str] = {"node": "node", "device": "device", "pod": "pod", "namespace": "namespace"}
LPU_METRICS: dict[str, Any] = {
    "utilization": "lpu_utilization_percent",
    "memory": {
        "mode": "used_total",
        "used": "lpu_memory_used_bytes",
        "total": "lpu_memory_total_bytes",
        "unit": "bytes",
    },
    "temperature": "lpu_temperature_celsius",
    "power": None,
}


def lpu_type(**changes: Any) -> dict[str, Any]:
    """The LPU's registration body (POST /api/v1/admin/devices), a fresh copy with `changes` applied."""
    body: dict[str, Any] = {
        "id": "lpu",
        "name": "HyperAccel LPU",
        "vendor": "HyperAccel",
        "resource_key": LPU_RESOURCE_KEY,
        "labels": copy.deepcopy(LPU_LABELS),
        "metrics": copy.deepcopy(LPU_METRICS),
    }
    body.update(changes)
    return body
