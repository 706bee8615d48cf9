"""The conditions protection follows, each with the limits of its hysteresis: temperature under the
policy's trip and resume temperatures, health (a device reading unhealthy trips, one reading healthy
again resumes), and an admin's own expression against its trip and resume values."""

from __future__ import annotations

from typing import Literal

from nufi.devices.spec import DeviceType, MetricKey
from nufi.messages import Message
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.hysteresis import Limits, temperature_limits

Thresholds = tuple[float, float, int, int]
Condition = Literal["temperature", "unhealthy", "custom"]
# The state a tripped track of each condition is in, as the history and the dry run name it.
TrippedState = Literal["hot", "unhealthy", "tripped"]
TRIPPED_STATE: dict[Condition, TrippedState] = {
    "temperature": "hot",
    "unhealthy": "unhealthy",
    "custom": "tripped",
}


def unhealthy_limits(policy: ThermalPolicy) -> Limits:
    """A device reading unhealthy (1) trips; one reading healthy (0) again resumes."""
    condition = policy.unhealthy
    return Limits(1.0, 0.0, condition.trip_hold_seconds, condition.resume_hold_seconds, zero_unusable=False)


def limits_key(limits: Limits) -> Thresholds:
    return (limits.trip, limits.resume, limits.trip_hold_seconds, limits.resume_hold_seconds)


def custom_limits(policy: ThermalPolicy) -> Limits:
    """The admin's expression at or above `trip_at` trips, at or below `resume_at` resumes; 0 is a
    reading like any other."""
    condition = policy.custom
    return Limits(
        condition.trip_at,
        condition.resume_at,
        condition.trip_hold_seconds,
        condition.resume_hold_seconds,
        zero_unusable=False,
    )


def limits_for(policy: ThermalPolicy, condition: Condition) -> Limits:
    if condition == "temperature":
        return temperature_limits(policy)
    return unhealthy_limits(policy) if condition == "unhealthy" else custom_limits(policy)


def thresholds(policy: ThermalPolicy) -> Thresholds:
    return limits_key(temperature_limits(policy))


def limits_of(policy: ThermalPolicy, condition: Condition) -> Thresholds:
    return limits_key(limits_for(policy, condition))


def conditions_of(policy: ThermalPolicy) -> list[Condition]:
    """The conditions the policy protects from, in the order a pod's reason names them."""
    found: list[Condition] = ["temperature"]
    if policy.unhealthy.enabled:
        found.append("unhealthy")
    if policy.custom.enabled and policy.custom.expression:
        found.append("custom")
    return found


# What each condition reads from its device type; the own condition brings its expression along.
NEEDS: dict[Condition, MetricKey] = {"temperature": "temperature", "unhealthy": "health"}


def unmet_conditions(device_type: DeviceType, policy: ThermalPolicy) -> dict[Condition, Message]:
    """The conditions the admin switched on that can never trip, because the type maps no expression
    for what they read; each with the sentence that says so and where the expression is mapped.
    Temperature counts while the policy is on; health once "unhealthy" is switched on."""
    mapped = device_type.metrics.queries()
    switched_on: list[Condition] = ["temperature"] if policy.enabled else []
    if policy.unhealthy.enabled:
        switched_on.append("unhealthy")
    return {
        condition: Message(f"thermal_policy.needs_{NEEDS[condition]}", {"device_type": device_type.name})
        for condition in switched_on
        if NEEDS[condition] not in mapped
    }
