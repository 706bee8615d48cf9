"""Parsing instants and durations as callers write them, and writing instants back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.errors import ValidationFailed
from nufi.monitoring.times import parse_duration, parse_instant, rfc3339

MOMENTS = st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
).map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1700000000", 1_700_000_000.0),
        ("1700000000.25", 1_700_000_000.25),
        ("1.7e9", 1_700_000_000.0),
        ("2023-11-14T22:13:20Z", 1_700_000_000.0),
        ("2023-11-14t22:13:20z", 1_700_000_000.0),
        ("2023-11-14 22:13:20Z", 1_700_000_000.0),
        ("2023-11-15T07:13:20+09:00", 1_700_000_000.0),
        ("2023-11-14T22:13:20.5Z", 1_700_000_000.5),
        ("2023-11-14T22:13:20.123456789Z", 1_700_000_000.123456),
        (" 1700000000 ", 1_700_000_000.0),
    ],
)
def test_instants(text: str, seconds: float) -> None:
    assert parse_instant(text, field="start") == pytest.approx(seconds, abs=1e-6)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "now",
        "2023-11-14T22:13:20",
        "2023-11-14",
        "2023-13-14T22:13:20Z",
        "2023-02-30T00:00:00Z",
        "1e400",
        "NaN",
        "inf",
        "1_700_000_000",
        "9999999999999",
    ],
)
def test_bad_instants_name_the_parameter(text: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        parse_instant(text, field="end")
    assert raised.value.field == "end"
    assert "end" in raised.value.detail


@given(MOMENTS)
def test_written_instants_read_back(moment: datetime) -> None:
    text = rfc3339(moment.timestamp())
    assert text.endswith("Z") and len(text) == 24
    assert parse_instant(text, field="t") == pytest.approx(moment.timestamp(), abs=1e-6)


@given(MOMENTS, st.integers(min_value=-23 * 60, max_value=23 * 60))
def test_any_offset_means_the_same_instant(moment: datetime, offset_minutes: int) -> None:
    local = moment.astimezone(timezone(timedelta(minutes=offset_minutes)))
    assert parse_instant(local.isoformat(), field="t") == pytest.approx(moment.timestamp(), abs=1e-6)


@given(st.text(max_size=40))
def test_any_text_is_a_time_or_a_validation_error(text: str) -> None:
    try:
        parse_instant(text, field="start")
    except ValidationFailed as exc:
        assert exc.field == "start"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30", 30.0),
        ("0.5", 0.5),
        ("30s", 30.0),
        ("5m", 300.0),
        ("1h30m", 5400.0),
        ("500ms", 0.5),
        ("1d", 86400.0),
        ("2w", 1_209_600.0),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text, field="step") == seconds


@pytest.mark.parametrize("text", ["", "0", "-5", "0s", "5 m", "5x", "m", "1.5m", "inf", "nan", "30s5"])
def test_bad_durations_name_the_parameter(text: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        parse_duration(text, field="step")
    assert raised.value.field == "step" and "step" in raised.value.detail


@given(
    st.lists(
        st.tuples(st.integers(0, 999), st.sampled_from(["ms", "s", "m", "h", "d", "w"])),
        min_size=1,
        max_size=4,
    )
)
def test_composed_durations_add_up(parts: list[tuple[int, str]]) -> None:
    factor = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    text = "".join(f"{n}{unit}" for n, unit in parts)
    total = sum(n * factor[unit] for n, unit in parts)
    if total > 0:
        assert parse_duration(text, field="step") == pytest.approx(total)
    else:
        with pytest.raises(ValidationFailed):
            parse_duration(text, field="step")
