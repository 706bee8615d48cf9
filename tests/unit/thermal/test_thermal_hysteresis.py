"""The hysteresis state machine trips and resumes only after full holds of continuous valid readings."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi.thermal.hysteresis import Track, start, step
from nufi.thermal.policy import ThermalPolicy

POLICY = ThermalPolicy(
    enabled=True, trip_celsius=85, resume_celsius=75, trip_hold_seconds=10, resume_hold_seconds=30
)


def run(readings: list[tuple[float, float | None]], track: Track | None = None) -> list[Track]:
    current = track or start(0.0)
    out = []
    for at, reading in readings:
        current = step(current, reading, at, POLICY)
        out.append(current)
    return out


def test_trips_only_after_the_full_hold() -> None:
    tracks = run([(0, 90), (5, 90), (9.9, 90), (10, 90)])
    assert [t.hot for t in tracks] == [False, False, False, True]
    assert tracks[-1].since == 10 and tracks[-1].pending_since is None and tracks[-1].state == "hot"


def test_reading_exactly_at_trip_counts() -> None:
    assert run([(0, 85), (10, 85)])[-1].hot


def test_dip_below_trip_resets_the_hold() -> None:
    tracks = run([(0, 90), (8, 84.9), (9, 90), (18, 90), (19, 90)])
    assert [t.hot for t in tracks] == [False, False, False, False, True]


def test_resumes_only_after_the_resume_hold() -> None:
    hot = start(0.0, hot=True)
    tracks = run([(0, 75), (29, 70), (30, 70)], hot)
    assert [t.hot for t in tracks] == [True, True, False]
    assert tracks[-1].state == "normal" and tracks[-1].since == 30


def test_between_resume_and_trip_keeps_hot_and_resets_the_resume_hold() -> None:
    hot = start(0.0, hot=True)
    tracks = run([(0, 70), (20, 80), (21, 70), (50, 70), (51, 70)], hot)
    assert [t.hot for t in tracks] == [True, True, True, True, False]
    assert tracks[1].pending_since is None


def test_missing_and_zero_readings_mark_stale_and_change_nothing_else() -> None:
    before = run([(0, 90)])[-1]
    for unusable in (None, 0.0):
        after = step(before, unusable, 5, POLICY)
        assert after.stale and after.state == "stale"
        assert after.hot == before.hot and after.temperature == 90 and after.since == before.since


def test_stale_reading_interrupts_a_hold() -> None:
    tracks = run([(0, 90), (5, None), (6, 90), (15, 90), (16, 90)])
    assert [t.hot for t in tracks] == [False, False, False, False, True]
    assert not tracks[2].stale


samples = st.lists(
    st.tuples(st.floats(0, 5, allow_nan=False), st.one_of(st.none(), st.just(0.0), st.floats(1, 150))),
    max_size=60,
)


def timeline(raw: list[tuple[float, float | None]]) -> list[tuple[float, float | None]]:
    at, out = 0.0, []
    for gap, reading in raw:
        at += gap
        out.append((at, reading))
    return out


@given(samples)
def test_never_hot_when_readings_never_reach_trip(raw: list[tuple[float, float | None]]) -> None:
    series = [(at, r if r is None or r < 85 else 84.0) for at, r in timeline(raw)]
    assert not any(t.hot for t in run(series))


@given(samples, st.booleans())
def test_stale_readings_never_change_hot(raw: list[tuple[float, float | None]], hot: bool) -> None:
    series = [(at, None if r is None or i % 2 else 0.0) for i, (at, r) in enumerate(timeline(raw))]
    assert all(t.hot == hot for t in run(series, start(0.0, hot=hot)))


@given(samples)
def test_transitions_are_at_least_a_hold_apart(raw: list[tuple[float, float | None]]) -> None:
    current, last_change = start(0.0), 0.0
    for at, reading in timeline(raw):
        after = step(current, reading, at, POLICY)
        if after.hot != current.hot:
            hold = POLICY.trip_hold_seconds if after.hot else POLICY.resume_hold_seconds
            assert at - last_change >= hold
            last_change = at
        current = after
