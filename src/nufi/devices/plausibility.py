"""What a device reading can physically be: the one rule for every device type, official or custom.

A value outside these ranges is not a measurement (a sensor an exporter could not read, an expression
in the wrong unit, a sum over cores instead of an average), so it must never be shown or acted upon as
one. Values are judged as NuFi normalises them: %, bytes, °C and W, and health as 1 or 0.

`implausible(metric, value)` judges one value (the wizard's check can judge samples with it);
`plausible_reading(reading)` judges a device's whole reading, including memory used against the
total, and returns it with every implausible value emptied, plus what was wrong.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

from nufi.devices.readings import DeviceReading
from nufi.devices.spec import MetricKey

MIN_UTILIZATION_PERCENT = 0.0
MAX_UTILIZATION_PERCENT = 100.0
MIN_TEMPERATURE_CELSIUS = -40.0
MAX_TEMPERATURE_CELSIUS = 150.0
MIN_MEMORY_BYTES = 0.0
MIN_POWER_WATTS = 0.0
HEALTH_VALUES = (0.0, 1.0)

# The fields of a `DeviceReading` a rule can empty.
ReadingField = Literal[
    "utilization_percent",
    "memory_used_bytes",
    "memory_total_bytes",
    "temperature_celsius",
    "power_watts",
    "health",
]


@dataclass(frozen=True)
class Implausible:
    """One value (or, for memory used against total, a pair) no device can report."""

    metric: MetricKey
    node: str
    device: str
    value: float
    # Why, naming the quantity, the value and the expected range.
    reason: str
    fields: tuple[ReadingField, ...]

    @property
    def message(self) -> str:
        return f"device {self.device} on node {self.node}: {self.reason}; it is shown as not reported"


def implausible(metric: MetricKey, value: float) -> str | None:
    """Why `value`, normalised, cannot be a real reading of `metric`; None when it can be."""
    name = metric.replace("_", " ")
    if not math.isfinite(value):
        return f"{name} {value} is not a finite number"
    if metric == "utilization" and not MIN_UTILIZATION_PERCENT <= value <= MAX_UTILIZATION_PERCENT:
        return (
            f"utilization {value:g} % is outside {MIN_UTILIZATION_PERCENT:g} to {MAX_UTILIZATION_PERCENT:g} %"
        )
    if metric == "temperature" and not MIN_TEMPERATURE_CELSIUS <= value <= MAX_TEMPERATURE_CELSIUS:
        return (
            f"temperature {value:g} °C is outside {MIN_TEMPERATURE_CELSIUS:g} to "
            f"{MAX_TEMPERATURE_CELSIUS:g} °C"
        )
    if metric in ("memory_used", "memory_total", "memory_free") and value < MIN_MEMORY_BYTES:
        return f"{name} {value:.0f} bytes is negative"
    if metric == "power" and value < MIN_POWER_WATTS:
        return f"power {value:g} W is negative"
    if metric == "health" and value not in HEALTH_VALUES:
        return f"health {value:g} is neither 1 (healthy) nor 0 (unhealthy)"
    return None


def plausible_reading(reading: DeviceReading) -> tuple[DeviceReading, tuple[Implausible, ...]]:
    """`reading` with every implausible value set to None, and what was implausible."""
    found: list[Implausible] = []

    def flag(metric: MetricKey, value: float, reason: str, *fields: ReadingField) -> None:
        found.append(Implausible(metric, reading.node, reading.device, value, reason, fields))

    for metric, field in _FIELDS:
        value = getattr(reading, field)
        reason = None if value is None else implausible(metric, value)
        if reason is not None:
            flag(metric, value, reason, field)
    used, total = reading.memory_used_bytes, reading.memory_total_bytes
    if used is not None and total is not None and used > total and not _found_memory(found):
        reason = f"memory used {used:.0f} bytes is more than the total {total:.0f} bytes"
        flag("memory_used", used, reason, "memory_used_bytes", "memory_total_bytes")
    if not found:
        return reading, ()
    emptied: dict[str, Any] = {field: None for item in found for field in item.fields}
    return dataclasses.replace(reading, **emptied), tuple(found)


_FIELDS: tuple[tuple[MetricKey, ReadingField], ...] = (
    ("utilization", "utilization_percent"),
    ("memory_used", "memory_used_bytes"),
    ("memory_total", "memory_total_bytes"),
    ("temperature", "temperature_celsius"),
    ("power", "power_watts"),
    ("health", "health"),
)


def _found_memory(found: list[Implausible]) -> bool:
    # A negative used or total is reason enough; comparing it with the other says nothing more.
    return any(field.startswith("memory_") for item in found for field in item.fields)
