"""Values shared by the database tests."""

from __future__ import annotations

from nufi.db import NewDeviceType


def device_type(id: str, resource_key: str, **overrides: object) -> NewDeviceType:
    """A valid custom device type; `overrides` replace single values."""
    values: NewDeviceType = {
        "id": id,
        "name": f"Accelerator {id}",
        "vendor": "HyperAccel",
        "kind": "custom",
        "resource_key": resource_key,
        "labels": {"node": "node", "device": "device", "pod": "pod", "namespace": "namespace"},
        "metrics": {
            "utilization": "lpu_utilization_percent",
            "memory": {
                "mode": "used_total",
                "used": "lpu_memory_used_bytes",
                "total": "lpu_memory_total_bytes",
                "unit": "bytes",
            },
            "temperature": "lpu_temperature_celsius",
            "power": None,
        },
    }
    values.update(overrides)  # type: ignore[typeddict-item]
    return values
