"""Policies: the defaults, the ranges, resume below trip, and a deployment's override."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from nufi.devices.spec import ThermalDefaults
from nufi.errors import ValidationFailed
from nufi.thermal.policy import PolicyOverride, ThermalPolicy, default_policy


def test_the_defaults_are_the_documented_ones() -> None:
    assert ThermalPolicy().model_dump() == {
        "enabled": False,
        "trip_celsius": 85.0,
        "resume_celsius": 75.0,
        "trip_hold_seconds": 10,
        "resume_hold_seconds": 30,
        "scope": "node",
        "allow_full_shutoff": False,
        "taint_node": False,
        "overrides_may_disable": False,
        "override_max_trip_celsius": None,
        "unhealthy": {"enabled": False, "trip_hold_seconds": 0, "resume_hold_seconds": 30},
        "custom": {
            "enabled": False,
            "name": "custom",
            "expression": None,
            "trip_at": 1.0,
            "resume_at": 0.0,
            "trip_hold_seconds": 10,
            "resume_hold_seconds": 30,
        },
        "breaker": {"max_node_share": 0.3, "max_replica_share": 0.5},
    }


def test_a_policy_stored_before_health_and_the_breaker_reads_with_their_defaults() -> None:
    stored = {"enabled": True, "trip_celsius": 90, "resume_celsius": 80}
    policy = ThermalPolicy.model_validate(stored | {"trip_celsius": 90.0, "resume_celsius": 80.0})
    assert not policy.unhealthy.enabled and policy.breaker.max_node_share == 0.3


@pytest.mark.parametrize(
    ("body", "location"),
    [
        ({"unhealthy": {"enabled": "yes"}}, ("unhealthy", "enabled")),
        ({"unhealthy": {"trip_hold_seconds": -1}}, ("unhealthy", "trip_hold_seconds")),
        ({"breaker": {"max_node_share": 0}}, ("breaker", "max_node_share")),
        ({"breaker": {"max_replica_share": 1.5}}, ("breaker", "max_replica_share")),
        ({"breaker": {"nodes": 0.5}}, ("breaker", "nodes")),
    ],
)
def test_health_and_breaker_fields_are_refused_naming_the_field(
    body: dict[str, object], location: tuple[str, ...]
) -> None:
    with pytest.raises(ValidationError) as refused:
        ThermalPolicy.model_validate(body)
    assert [tuple(e["loc"]) for e in refused.value.errors()] == [location]


def test_the_breaker_allows_its_share_rounded_down_and_never_less_than_one() -> None:
    breaker = ThermalPolicy().breaker
    assert [breaker.allowed(0.3, n) for n in (1, 2, 3, 4, 10, 100)] == [1, 1, 1, 1, 3, 30]
    assert [breaker.allowed(0.5, n) for n in (1, 2, 3, 4)] == [1, 1, 1, 2]
    assert breaker.allowed(1.0, 7) == 7


def test_a_types_thermal_defaults_give_its_temperatures() -> None:
    policy = default_policy(ThermalDefaults(threshold_celsius=90, recover_celsius=70))
    assert (policy.trip_celsius, policy.resume_celsius, policy.enabled) == (90, 70, False)
    assert default_policy(None) == ThermalPolicy()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("trip_celsius", 29),
        ("trip_celsius", 151),
        ("resume_celsius", -1),
        ("trip_hold_seconds", -1),
        ("resume_hold_seconds", 3601),
        ("scope", "rack"),
        ("surprise", 1),
    ],
)
def test_out_of_range_fields_are_refused_by_name(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as caught:
        ThermalPolicy.model_validate({field: value})
    assert caught.value.errors()[0]["loc"] == (field,)


@given(st.floats(30, 150), st.floats(0, 150))
def test_resume_must_be_below_trip(trip: float, resume: float) -> None:
    if resume < trip:
        assert ThermalPolicy(trip_celsius=trip, resume_celsius=resume).resume_celsius == resume
        return
    with pytest.raises(ValidationError) as caught:
        ThermalPolicy(trip_celsius=trip, resume_celsius=resume)
    error = caught.value.errors()[0]
    assert error["type"] == "thermal_policy.resume_not_below_trip"
    assert "must be below trip_celsius" in error["msg"]
    assert error["ctx"] == {"resume": resume, "trip": trip}


def test_an_override_changes_only_what_it_names() -> None:
    policy = ThermalPolicy(enabled=True, trip_hold_seconds=3, override_max_trip_celsius=100)
    merged = PolicyOverride(trip_celsius=95).applied_to(policy)
    assert (merged.trip_celsius, merged.resume_celsius, merged.enabled, merged.trip_hold_seconds) == (
        95,
        75,
        True,
        3,
    )
    may_disable = policy.model_copy(update={"overrides_may_disable": True})
    assert PolicyOverride(enabled=False).applied_to(may_disable).enabled is False
    assert PolicyOverride().applied_to(policy) == policy


def test_an_override_that_leaves_resume_above_trip_names_the_field_it_set() -> None:
    with pytest.raises(ValidationFailed) as caught:
        PolicyOverride(trip_celsius=70).applied_to(ThermalPolicy())
    assert caught.value.field == "trip_celsius"
    with pytest.raises(ValidationFailed) as caught:
        PolicyOverride(resume_celsius=90).applied_to(ThermalPolicy())
    assert caught.value.field == "resume_celsius"


@given(st.booleans(), st.booleans(), st.one_of(st.none(), st.booleans()))
def test_an_override_may_switch_protection_off_only_where_the_policy_lets_it(
    enabled: bool, may_disable: bool, override_enabled: bool | None
) -> None:
    policy = ThermalPolicy(enabled=enabled, overrides_may_disable=may_disable)
    override = PolicyOverride(enabled=override_enabled)
    switches_off = enabled and override_enabled is False
    refused = override.refusal(policy)
    if switches_off and not may_disable:
        assert refused is not None and refused.field == "enabled" and refused.status == 422
        assert "overrides_may_disable" in refused.detail
        with pytest.raises(ValidationFailed):
            override.applied_to(policy)
    else:
        assert refused is None
        assert override.applied_to(policy).enabled is (
            enabled if override_enabled is None else override_enabled
        )


@given(st.floats(30, 150), st.one_of(st.none(), st.floats(30, 150)))
def test_an_override_raises_the_trip_temperature_at_most_to_the_policys_bound(
    trip: float, bound: float | None
) -> None:
    policy = ThermalPolicy(trip_celsius=85, resume_celsius=20, override_max_trip_celsius=bound)
    refused = PolicyOverride(trip_celsius=trip).refusal(policy)
    # Unbounded by an admin, an override may not raise the trip above the policy's own.
    most = 85 if bound is None else bound
    if trip > most:
        assert refused is not None and refused.field == "trip_celsius"
        assert f"{most:g}" in refused.detail and "override_max_trip_celsius" in refused.detail
        assert refused.extra["limit"] == most
    else:
        assert refused is None
        assert PolicyOverride(trip_celsius=trip).applied_to(policy).trip_celsius == trip


@given(st.floats(30, 150), st.floats(0, 150), st.floats(1, 60))
def test_an_overrides_resume_stays_within_the_policys_own_gap_below_its_trip(
    trip: float, resume: float, band: float
) -> None:
    policy = ThermalPolicy(trip_celsius=90, resume_celsius=90 - band, override_max_trip_celsius=150)
    refused = PolicyOverride(trip_celsius=trip, resume_celsius=resume).refusal(policy)
    gap = policy.trip_celsius - policy.resume_celsius
    if resume >= trip:
        assert refused is not None and refused.code == "thermal_override.resume_not_below_trip"
    elif resume < trip - gap:
        assert refused is not None and refused.field == "resume_celsius"
        assert refused.code == "thermal_override.resume_too_low"
        assert refused.params["least"] == trip - gap
    else:
        assert refused is None


def test_a_member_cannot_hold_traffic_off_with_a_resume_of_zero() -> None:
    # The type's policy (85/75) with no bounds set by an admin: the defaults hold.
    policy = ThermalPolicy(enabled=True)
    for override, field, code in (
        (PolicyOverride(trip_celsius=150, resume_celsius=149), "trip_celsius", "trip_above_policy"),
        (PolicyOverride(resume_celsius=0), "resume_celsius", "resume_too_low"),
    ):
        refused = override.refusal(policy)
        assert refused is not None and refused.field == field, override
        assert refused.code == f"thermal_override.{code}"
    assert PolicyOverride(trip_celsius=80, resume_celsius=70).refusal(policy) is None


def test_the_bounds_are_checked_against_the_policys_range() -> None:
    with pytest.raises(ValidationError) as caught:
        ThermalPolicy.model_validate({"override_max_trip_celsius": 151})
    assert caught.value.errors()[0]["loc"] == ("override_max_trip_celsius",)
