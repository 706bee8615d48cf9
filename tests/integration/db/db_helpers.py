"""Values shared by the database tests."""

from __future__ import annotations

import copy

from nufi.db import NewDeviceType
from support.lpu_type import LPU_LABELS, LPU_METRICS


def device_type(id: str, resource_key: str, **overrides: object) -> NewDeviceType:
    """A valid custom device type; `overrides` replace single values."""
    values: NewDeviceType = {
        "id": id,
        "name": f"Accelerator {id}",
        "vendor": "HyperAccel",
        "kind": "custom",
        "resource_key": resource_key,
        "labels": copy.deepcopy(LPU_LABELS),
        "metrics": copy.deepcopy(LPU_METRICS),
    }
    values.update(overrides)  # type: ignore[typeddict-item]
    return values
