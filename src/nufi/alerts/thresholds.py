"""What each generated alert of a device type fires on, and for how long it must hold first.

Every rule can be switched off, and each has its `for:` duration. The hot-device rule's temperature
defaults to the type's thermal policy trip, so alerts and traffic control agree until an admin sets
a temperature of its own here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RuleName = Literal["hot", "memory", "unhealthy", "exporter_down", "missing_device", "breaker_held"]
RULE_NAMES: tuple[RuleName, ...] = (
    "hot",
    "memory",
    "unhealthy",
    "exporter_down",
    "missing_device",
    "breaker_held",
)
MAX_FOR_SECONDS = 86400
MIN_CELSIUS, MAX_CELSIUS = 30.0, 150.0


class _Strict(BaseModel):
    # Strict: numbers are JSON numbers and switches JSON booleans, never strings.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _held(seconds: int) -> int:
    return Field(
        default=seconds,
        ge=0,
        le=MAX_FOR_SECONDS,
        description="How long the condition must hold before the alert fires (Prometheus `for:`).",
    )


class _Rule(_Strict):
    # Every rule can be switched off.
    enabled: bool = True


class HotRule(_Rule):
    celsius: float | None = Field(
        default=None,
        ge=MIN_CELSIUS,
        le=MAX_CELSIUS,
        description="Fire at or above this temperature (°C); null follows the thermal policy's trip.",
    )
    for_seconds: int = _held(60)


class MemoryRule(_Rule):
    percent: float = Field(default=95.0, gt=0, le=100, description="Fire at or above this share used (%).")
    for_seconds: int = _held(300)


class UnhealthyRule(_Rule):
    for_seconds: int = _held(60)


class ExporterDownRule(_Rule):
    for_seconds: int = _held(120)


class MissingDeviceRule(_Rule):
    for_seconds: int = _held(300)


class BreakerHeldRule(_Rule):
    for_seconds: int = _held(0)


class AlertThresholds(_Strict):
    """A type's alert settings; a rule left out keeps its defaults."""

    hot: HotRule = HotRule()
    memory: MemoryRule = MemoryRule()
    unhealthy: UnhealthyRule = UnhealthyRule()
    exporter_down: ExporterDownRule = ExporterDownRule()
    missing_device: MissingDeviceRule = MissingDeviceRule()
    # Protection's circuit breaker holds affected nodes back (their traffic kept): someone should look.
    breaker_held: BreakerHeldRule = BreakerHeldRule()
