"""The conditions protection follows, each with the limits of its hysteresis: temperature under the
policy's trip and resume temperatures, and health (a device reading unhealthy trips, one reading
healthy again resumes)."""

from __future__ import annotations

from typing import Literal

from nufi.thermal.hysteresis import Limits
from nufi.thermal.policy import ThermalPolicy

Thresholds = tuple[float, float, int, int]
Condition = Literal["temperature", "unhealthy"]


def thresholds(policy: ThermalPolicy) -> Thresholds:
    return (policy.trip_celsius, policy.resume_celsius, policy.trip_hold_seconds, policy.resume_hold_seconds)


def unhealthy_limits(policy: ThermalPolicy) -> Limits:
    """A device reading unhealthy (1) trips; one reading healthy (0) again resumes."""
    condition = policy.unhealthy
    return Limits(1.0, 0.0, condition.trip_hold_seconds, condition.resume_hold_seconds, zero_unusable=False)


def limits_key(limits: Limits) -> Thresholds:
    return (limits.trip, limits.resume, limits.trip_hold_seconds, limits.resume_hold_seconds)
