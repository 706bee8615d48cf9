"""A policy's and an override's numbers are finite: NaN and infinity are refused naming the field
(`finite_number`, worded as `request.finite_number`), whether they come from a request or a form,
and an own condition's trip and resume stay within MAX_CUSTOM_VALUE."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from nufi.thermal.policy import MAX_CUSTOM_VALUE, Breaker, CustomCondition, PolicyOverride, ThermalPolicy

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
FLOAT_FIELDS: list[tuple[type[BaseModel], str, dict[str, Any]]] = [
    (ThermalPolicy, "trip_celsius", {}),
    (ThermalPolicy, "resume_celsius", {}),
    (ThermalPolicy, "override_max_trip_celsius", {}),
    (PolicyOverride, "trip_celsius", {}),
    (PolicyOverride, "resume_celsius", {}),
    (CustomCondition, "trip_at", {"resume_at": -1.0}),
    (CustomCondition, "resume_at", {}),
    (Breaker, "max_node_share", {}),
    (Breaker, "max_replica_share", {}),
]


@pytest.mark.parametrize(("model", "field", "rest"), FLOAT_FIELDS)
@given(value=NON_FINITE)
def test_a_non_finite_value_is_refused_naming_the_field(
    model: type[BaseModel], field: str, rest: dict[str, Any], value: float
) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate({**rest, field: value})
    (error,) = caught.value.errors()
    assert error["type"] == "finite_number" and error["loc"] == (field,)


def test_a_nan_trip_in_an_own_condition_is_refused_where_the_policy_holds_it() -> None:
    with pytest.raises(ValidationError) as caught:
        ThermalPolicy.model_validate({"custom": {"trip_at": math.nan, "resume_at": 0.0}})
    assert caught.value.errors()[0]["loc"] == ("custom", "trip_at")


@given(
    trip=st.floats(allow_nan=False, allow_infinity=False),
    resume=st.floats(allow_nan=False, allow_infinity=False),
)
def test_an_own_conditions_values_are_accepted_exactly_within_the_bound(trip: float, resume: float) -> None:
    within = abs(trip) <= MAX_CUSTOM_VALUE and abs(resume) <= MAX_CUSTOM_VALUE
    try:
        condition = CustomCondition(trip_at=trip, resume_at=resume)
    except ValidationError as exc:
        types = {error["type"] for error in exc.errors()}
        assert not within or types == {"thermal_policy.custom_resume_not_below_trip"}, exc
        assert not within or resume >= trip
    else:
        assert within and resume < trip
        assert (condition.trip_at, condition.resume_at) == (trip, resume)
