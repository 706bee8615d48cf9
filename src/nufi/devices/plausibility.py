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
from nufi.messages import Message

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
    # Why, naming the quantity, the value and the expected range (a `plausibility.*` message).
    why: Message
    fields: tuple[ReadingField, ...]

    @property
    def reason(self) -> str:
        return self.why.text("en")

    @property
    def said(self) -> Message:
        """The whole finding as a message (`plausibility.reading`), for a face to word."""
        return Message("plausibility.reading", {"device": self.device, "node": self.node, "reason": self.why})

    @property
    def message(self) -> str:
        return self.said.text("en")


def implausible(metric: MetricKey, value: float) -> Message | None:
    """Why `value`, normalised, cannot be a real reading of `metric`; None when it can be."""
    if not math.isfinite(value):
        # JSON has no NaN or infinity: the value travels as its text.
        return Message("plausibility.not_finite", {"metric": _metric_name(metric), "value": str(value)})
    if metric == "utilization" and not MIN_UTILIZATION_PERCENT <= value <= MAX_UTILIZATION_PERCENT:
        return Message(
            "plausibility.utilization",
            {"value": value, "min": MIN_UTILIZATION_PERCENT, "max": MAX_UTILIZATION_PERCENT},
        )
    if metric == "temperature" and not MIN_TEMPERATURE_CELSIUS <= value <= MAX_TEMPERATURE_CELSIUS:
        return Message(
            "plausibility.temperature",
            {"value": value, "min": MIN_TEMPERATURE_CELSIUS, "max": MAX_TEMPERATURE_CELSIUS},
        )
    if metric in ("memory_used", "memory_total", "memory_free") and value < MIN_MEMORY_BYTES:
        return Message("plausibility.memory_negative", {"metric": _metric_name(metric), "value": value})
    if metric == "power" and value < MIN_POWER_WATTS:
        return Message("plausibility.power_negative", {"value": value})
    if metric == "health" and value not in HEALTH_VALUES:
        return Message("plausibility.health", {"value": value})
    return None


def _metric_name(metric: MetricKey) -> Message:
    return Message(f"metric.{metric}")


def plausible_reading(reading: DeviceReading) -> tuple[DeviceReading, tuple[Implausible, ...]]:
    """`reading` with every implausible value set to None, and what was implausible."""
    found: list[Implausible] = []

    def flag(metric: MetricKey, value: float, reason: Message, *fields: ReadingField) -> None:
        found.append(Implausible(metric, reading.node, reading.device, value, reason, fields))

    for metric, field in _FIELDS:
        value = getattr(reading, field)
        reason = None if value is None else implausible(metric, value)
        if reason is not None:
            flag(metric, value, reason, field)
    used, total = reading.memory_used_bytes, reading.memory_total_bytes
    if used is not None and total is not None and used > total and not _found_memory(found):
        over = Message("plausibility.memory_over_total", {"used": used, "total": total})
        flag("memory_used", used, over, "memory_used_bytes", "memory_total_bytes")
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
