"""Alert thresholds: defaults documented, strict JSON numbers, bounds that name the field."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from nufi.alerts.thresholds import MAX_FOR_SECONDS, AlertThresholds


def test_defaults_are_the_documented_ones() -> None:
    defaults = AlertThresholds()
    assert defaults.hot.celsius is None and defaults.hot.for_seconds == 60
    assert (defaults.memory.percent, defaults.memory.for_seconds) == (95.0, 300)
    assert defaults.unhealthy.for_seconds == 60
    assert defaults.exporter_down.for_seconds == 120
    assert defaults.missing_device.for_seconds == 300


@given(
    celsius=st.none() | st.floats(min_value=30, max_value=150),
    percent=st.floats(min_value=0.01, max_value=100),
    hold=st.integers(min_value=0, max_value=MAX_FOR_SECONDS),
    enabled=st.booleans(),
)
def test_valid_thresholds_round_trip_through_json(
    celsius: float | None, percent: float, hold: int, enabled: bool
) -> None:
    body = {
        "hot": {"enabled": enabled, "celsius": celsius, "for_seconds": hold},
        "memory": {"percent": percent, "for_seconds": hold},
        "missing_device": {"enabled": enabled},
    }
    thresholds = AlertThresholds.model_validate(body)
    assert AlertThresholds.model_validate_json(thresholds.model_dump_json()) == thresholds


@pytest.mark.parametrize(
    ("body", "location"),
    [
        ({"hot": {"celsius": "90"}}, ("hot", "celsius")),
        ({"hot": {"celsius": 20}}, ("hot", "celsius")),
        ({"memory": {"percent": 0}}, ("memory", "percent")),
        ({"memory": {"percent": 101}}, ("memory", "percent")),
        ({"unhealthy": {"for_seconds": -1}}, ("unhealthy", "for_seconds")),
        ({"exporter_down": {"for_seconds": MAX_FOR_SECONDS + 1}}, ("exporter_down", "for_seconds")),
        ({"missing_device": {"enabled": "yes"}}, ("missing_device", "enabled")),
        ({"hot": {"treshold": 90}}, ("hot", "treshold")),
        ({"fan": {}}, ("fan",)),
    ],
)
def test_a_wrong_value_is_refused_naming_its_field(body: dict[str, Any], location: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError) as refused:
        AlertThresholds.model_validate(body)
    assert [tuple(e["loc"]) for e in refused.value.errors()] == [location]
