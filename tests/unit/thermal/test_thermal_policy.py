"""Thermal policies: defaults, ranges, resume below trip named on resume_celsius, overrides."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from nufi.devices.spec import ThermalDefaults, field_errors
from nufi.errors import ValidationFailed
from nufi.thermal.policy import PolicyOverride, ThermalPolicy, default_policy


def fields_of(**document: Any) -> set[str]:
    with pytest.raises(ValidationError) as caught:
        ThermalPolicy.model_validate(document)
    return {error.field for error in field_errors(caught.value)}


def test_defaults() -> None:
    policy = ThermalPolicy()
    assert (policy.enabled, policy.trip_celsius, policy.resume_celsius) == (False, 85.0, 75.0)
    assert (policy.trip_hold_seconds, policy.resume_hold_seconds, policy.scope) == (10, 30, "node")
    assert not policy.allow_full_shutoff and not policy.taint_node


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"trip_celsius": 29.9}, "trip_celsius"),
        ({"trip_celsius": 150.1}, "trip_celsius"),
        ({"resume_celsius": -1}, "resume_celsius"),
        ({"trip_hold_seconds": 3601}, "trip_hold_seconds"),
        ({"resume_hold_seconds": -1}, "resume_hold_seconds"),
        ({"scope": "rack"}, "scope"),
        ({"colour": "red"}, "colour"),
        ({"trip_celsius": float("nan")}, "trip_celsius"),
    ],
)
def test_out_of_range_names_the_field(document: dict[str, Any], field: str) -> None:
    assert fields_of(**document) == {field}


def test_resume_not_below_trip_names_resume() -> None:
    with pytest.raises(ValidationError) as caught:
        ThermalPolicy(trip_celsius=80, resume_celsius=80)
    (error,) = field_errors(caught.value)
    assert error.field == "resume_celsius" and "must be below trip_celsius (80)" in error.message


def test_override_merges() -> None:
    merged = PolicyOverride(enabled=True, trip_celsius=90).applied_to(ThermalPolicy(trip_hold_seconds=5))
    assert (merged.enabled, merged.trip_celsius, merged.resume_celsius, merged.trip_hold_seconds) == (
        True,
        90,
        75,
        5,
    )
    assert PolicyOverride().applied_to(ThermalPolicy()) == ThermalPolicy()


@pytest.mark.parametrize(
    ("override", "field"),
    [
        (PolicyOverride(trip_celsius=70), "trip_celsius"),
        (PolicyOverride(resume_celsius=90), "resume_celsius"),
    ],
)
def test_override_that_breaks_hysteresis_fails(override: PolicyOverride, field: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        override.applied_to(ThermalPolicy())
    assert caught.value.field == field and caught.value.status == 422


def test_override_itself_checks_ranges_and_order() -> None:
    with pytest.raises(ValidationError) as caught:
        PolicyOverride.model_validate({"trip_celsius": 80, "resume_celsius": 85})
    assert [e.field for e in field_errors(caught.value)] == ["resume_celsius"]
    with pytest.raises(ValidationError):
        PolicyOverride.model_validate({"trip_celsius": 10})


def test_default_policy_from_type_defaults() -> None:
    assert default_policy(None) == ThermalPolicy()
    policy = default_policy(ThermalDefaults(threshold_celsius=95, recover_celsius=80))
    assert (policy.trip_celsius, policy.resume_celsius, policy.enabled) == (95, 80, False)
    clamped = default_policy(ThermalDefaults(threshold_celsius=20, recover_celsius=-10))
    assert (clamped.trip_celsius, clamped.resume_celsius) == (30, 0)


@given(st.floats(-40, 150), st.floats(-40, 150))
def test_default_policy_is_always_valid(threshold: float, recover: float) -> None:
    if recover >= threshold:
        return
    policy = default_policy(ThermalDefaults(threshold_celsius=threshold, recover_celsius=recover))
    assert 30 <= policy.trip_celsius <= 150 and 0 <= policy.resume_celsius < policy.trip_celsius


@given(st.floats(allow_nan=True, allow_infinity=True), st.floats(allow_nan=True, allow_infinity=True))
def test_valid_exactly_when_in_range_and_ordered(trip: float, resume: float) -> None:
    valid = 30 <= trip <= 150 and 0 <= resume <= 150 and resume < trip
    try:
        ThermalPolicy(trip_celsius=trip, resume_celsius=resume)
    except ValidationError as exc:
        assert not valid
        assert {e.field for e in field_errors(exc)} <= {"trip_celsius", "resume_celsius"}
    else:
        assert valid
