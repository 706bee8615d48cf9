"""Time ranges: parameter checks, step choice and the maximum range."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.config import load_settings
from nufi.errors import ValidationFailed
from nufi.monitoring.ranges.request import (
    DEFAULT_MAX_RANGE_SECONDS,
    MAX_POINTS,
    MAX_STEP_SECONDS,
    MIN_STEP_SECONDS,
    PROMETHEUS_MAX_POINTS,
    RangeQuery,
    RangeRequest,
    choose_step,
    finest_step,
    parse_range_request,
    points_between,
)
from nufi.monitoring.settings import MonitoringSettings

from .range_helpers import NOW, parse

# -- parameters ----------------------------------------------------------------------------------------


def test_defaults_are_the_last_hour_per_device() -> None:
    request = parse()
    assert (request.start, request.end, request.by, request.node, request.device) == (
        NOW - 3600,
        NOW,
        "device",
        None,
        None,
    )
    assert request.step_seconds == 15.0 and request.points <= MAX_POINTS


def test_explicit_parameters() -> None:
    request = parse(
        metric="memory",
        start="2023-11-14T21:13:20Z",
        end="1700000000",
        step="1m",
        by="node",
        node="n",
        device="d",
    )
    assert (request.metric, request.start, request.end, request.step_seconds) == (
        "memory",
        NOW - 3600,
        NOW,
        60.0,
    )
    assert (request.by, request.node, request.device) == ("node", "n", "d")


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"metric": "watts"}, "metric"),
        ({"metric": "health"}, "metric"),  # health has no time range
        ({"metric": ""}, "metric"),
        ({"by": "pod"}, "by"),
        ({"start": "yesterday"}, "start"),
        ({"end": "2023-11-14T22:13:20"}, "end"),
        ({"start": "1700000000", "end": "1700000000"}, "start"),
        ({"start": "1700000100", "end": "1700000000"}, "start"),
        ({"step": "0"}, "step"),
        ({"step": "fast"}, "step"),
        ({"start": "1697321600", "end": "1700000000", "step": "1s"}, "step"),
        ({"step": "99999999999999999999d"}, "step"),
        ({"step": "367d"}, "step"),
        ({"step": "0.0001"}, "step"),
        ({"step": "1e-320"}, "step"),
        ({"start": "1699999999", "end": "1700000000", "step": "1e-300"}, "step"),
        ({"start": "0", "end": "1700000000", "step": "1e30"}, "start"),
        ({"start": "0", "end": "1700000000"}, "start"),
        ({"start": "1697321599", "end": "1700000000"}, "start"),  # 31 days and a second
        ({"node": ""}, "node"),
        ({"device": "x" * 2000}, "device"),
    ],
)
def test_each_bad_parameter_is_named(values: dict[str, str], field: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        parse(**values)
    assert raised.value.field == field
    assert raised.value.status == 422


def test_too_fine_a_step_suggests_one_that_works() -> None:
    month = {"start": str(NOW - 31 * 86400), "end": str(NOW)}
    with pytest.raises(ValidationFailed, match=r"at least 244 s") as raised:
        parse(**month, step="1s")
    assert raised.value.extra["limit"] == 244.0
    assert parse(**month, step="244").points <= PROMETHEUS_MAX_POINTS
    with pytest.raises(ValidationFailed):
        parse(**month, step="243")


def test_a_step_past_its_bounds_names_the_bound() -> None:
    with pytest.raises(ValidationFailed, match=r"at most 31622400 s") as raised:
        parse(step="367d")
    assert (raised.value.field, raised.value.extra["limit"]) == ("step", MAX_STEP_SECONDS)
    with pytest.raises(ValidationFailed, match=r"finer than the 1 ms.*at least 0.001 s"):
        parse(start=str(NOW - 1), end=str(NOW), step="0.0005")
    # The finest step allowed over the default hour: 3600 / 0.327 is 11,009 points.
    with pytest.raises(ValidationFailed, match=r"at least 0.328 s") as raised:
        parse(step="0.0005")
    assert (raised.value.field, raised.value.extra["limit"]) == ("step", 0.328)


def test_too_long_a_range_names_start_and_the_earliest_start() -> None:
    with pytest.raises(ValidationFailed) as raised:
        parse(start=str(NOW - 40 * 86400), end=str(NOW))
    error = raised.value
    assert (error.field, error.status) == ("start", 422)
    assert error.extra["limit"] == NOW - DEFAULT_MAX_RANGE_SECONDS
    assert error.extra["max_range_seconds"] == DEFAULT_MAX_RANGE_SECONDS
    assert "40 days" in error.detail and "31 days" in error.detail
    assert "2023-10-14T22:13:20.000Z" in error.detail and "NUFI_MONITORING_MAX_RANGE_SECONDS" in error.detail
    assert parse(start=str(error.extra["limit"]), end=str(NOW)).start == NOW - DEFAULT_MAX_RANGE_SECONDS


def test_the_maximum_range_is_a_parameter() -> None:
    week = 7 * 86400.0
    request = parse_range_request(
        RangeQuery("power", start=str(NOW - week), end=str(NOW)),
        now=NOW,
        finest_step_seconds=15.0,
        max_range_seconds=week,
    )
    assert request.end - request.start == week
    with pytest.raises(ValidationFailed) as raised:
        parse_range_request(
            RangeQuery("power", start=str(NOW - week - 1), end=str(NOW)),
            now=NOW,
            finest_step_seconds=15.0,
            max_range_seconds=week,
        )
    assert raised.value.extra["limit"] == NOW - week


def bounded(start: float, end: float, step: float, max_range: float) -> RangeRequest | ValidationFailed:
    try:
        return parse_range_request(
            RangeQuery("utilization", start=repr(start), end=repr(end), step=repr(step)),
            now=NOW,
            finest_step_seconds=15.0,
            max_range_seconds=max_range,
        )
    except ValidationFailed as exc:
        return exc


INSTANTS = st.floats(min_value=-9e9, max_value=9e9)
STEPS = st.one_of(st.floats(min_value=1e-6, max_value=1e9), st.floats(min_value=1e-300, max_value=1e300))


@given(
    start=INSTANTS,
    end=INSTANTS,
    step=STEPS,
    max_range=st.sampled_from([60.0, 3600.0, DEFAULT_MAX_RANGE_SECONDS, 10 * 366 * 86400.0]),
)
def test_every_range_is_bounded_or_refused_with_a_limit_that_works(
    start: float, end: float, step: float, max_range: float
) -> None:
    outcome = bounded(start, end, step, max_range)
    if isinstance(outcome, RangeRequest):
        assert outcome.end - outcome.start <= max_range
        assert MIN_STEP_SECONDS <= outcome.step_seconds <= MAX_STEP_SECONDS
        assert outcome.points <= PROMETHEUS_MAX_POINTS
        return
    assert outcome.status == 422
    assert outcome.field in ("start", "step")
    if outcome.field == "start" and "limit" in outcome.extra:
        # The earliest start allowed is allowed (with a step that fits), and anything earlier is not.
        limit = outcome.extra["limit"]
        assert isinstance(limit, float)
        one_step = min(max_range, MAX_STEP_SECONDS)
        assert isinstance(bounded(limit, end, one_step, max_range), RangeRequest)
        earlier = math.nextafter(limit, -math.inf)
        refused = bounded(earlier, end, one_step, max_range)
        assert isinstance(refused, ValidationFailed) and refused.field == "start"
    elif outcome.field == "step":
        limit = outcome.extra["limit"]
        assert isinstance(limit, float)
        assert isinstance(bounded(start, end, limit, max_range), RangeRequest)
        if limit not in (MIN_STEP_SECONDS, MAX_STEP_SECONDS):
            # The finest step allowed on its grid: whole seconds, or whole milliseconds below one.
            finer = limit - 1 if limit > 1 else limit - MIN_STEP_SECONDS
            if finer >= MIN_STEP_SECONDS:
                assert isinstance(bounded(start, end, finer, max_range), ValidationFailed)


@given(span=st.floats(min_value=1e-6, max_value=10 * 366 * 86400))
def test_the_finest_step_keeps_a_span_within_prometheus_limit(span: float) -> None:
    step = finest_step(span)
    assert MIN_STEP_SECONDS <= step <= MAX_STEP_SECONDS
    assert points_between(0.0, span, step) <= PROMETHEUS_MAX_POINTS


@given(
    span=st.floats(min_value=0.001, max_value=20 * 365 * 86400),
    finest=st.floats(min_value=0.05, max_value=3600),
)
def test_a_chosen_step_never_gives_more_than_500_points(span: float, finest: float) -> None:
    step = choose_step(span, finest)
    assert points_between(0.0, span, step) <= MAX_POINTS
    assert step >= finest
    # Whole seconds, or whole milliseconds below a second.
    assert step == round(step) or (step < 1 and step * 1000 == pytest.approx(round(step * 1000)))


def test_a_short_range_steps_by_the_scrape_interval() -> None:
    assert choose_step(300.0, 15.0) == 15.0
    assert choose_step(86400.0, 15.0) == 174.0  # 86400 / 499 = 173.1..., rounded up


def test_the_maximum_range_is_a_server_setting() -> None:
    assert MonitoringSettings.from_settings(load_settings()).max_range_seconds == DEFAULT_MAX_RANGE_SECONDS
    week = MonitoringSettings.from_settings(load_settings(monitoring_max_range_seconds=7 * 86400))
    assert week.max_range_seconds == 7 * 86400
    with pytest.raises(ValidationFailed) as raised:
        load_settings(monitoring_max_range_seconds=10)
    assert raised.value.field == "NUFI_MONITORING_MAX_RANGE_SECONDS"
