"""A transition's English message, as kubectl readers and history rows older than the messages read it:
one wording per condition and direction, the override named when one made the track."""

from __future__ import annotations

from typing import cast

import pytest

from nufi.thermal.history.transitions import history_event
from nufi.thermal.policy import CustomCondition, ThermalPolicy, UnhealthyCondition
from nufi.thermal.protection.assessment import TrackKey, Transition
from nufi.thermal.protection.conditions import Condition

POLICY = ThermalPolicy(
    trip_celsius=85,
    resume_celsius=75,
    trip_hold_seconds=10,
    resume_hold_seconds=30,
    unhealthy=UnhealthyCondition(enabled=True, trip_hold_seconds=5, resume_hold_seconds=40),
    custom=CustomCondition(
        enabled=True,
        name="ecc",
        expression="up",
        trip_at=3,
        resume_at=1,
        trip_hold_seconds=7,
        resume_hold_seconds=9,
    ),
)


@pytest.mark.parametrize(
    ("condition", "device", "hot", "temperature", "told"),
    [
        ("temperature", None, True, 91.5, "n1 at 91.5 °C reached 85 °C for 10 s"),
        ("temperature", "0", False, None, "device 0 on n1 back at or below 75 °C for 30 s"),
        ("unhealthy", None, True, None, "n1 unhealthy for 5 s"),
        ("unhealthy", "1", False, None, "device 1 on n1 healthy again for 40 s"),
        ("custom", None, True, None, "n1 read ecc at or above 3 for 7 s"),
        ("custom", None, False, None, "n1 read ecc at or below 1 for 9 s"),
    ],
)
def test_each_condition_and_direction_is_told_in_its_own_words(
    condition: str, device: str | None, hot: bool, temperature: float | None, told: str
) -> None:
    key = TrackKey("lpu", "n1", device, (85.0, 75.0, 10, 30), cast(Condition, condition))
    event = history_event(Transition(key, hot, temperature, POLICY), [], 0.0)
    assert event.message == told
    overridden = history_event(Transition(key, hot, temperature, POLICY, override_of="p/web"), [], 0.0)
    assert overridden.message == f"{told} (override of p/web)"
