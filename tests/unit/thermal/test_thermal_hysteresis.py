"""The hysteresis of one node: trips only after a continuous hold at or above trip, recovers only after
a continuous hold at or below resume, and an unusable reading changes nothing but the stale mark."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.hysteresis import Track, start, step, temperature_limits

POLICY = temperature_limits(
    ThermalPolicy(
        enabled=True, trip_celsius=85, resume_celsius=75, trip_hold_seconds=10, resume_hold_seconds=30
    )
)


def feed(track: Track, readings: list[tuple[float, float | None]]) -> Track:
    for at, value in readings:
        track = step(track, value, at, POLICY)
    return track


def test_trips_only_after_the_whole_trip_hold() -> None:
    track = feed(start(0), [(0, 90), (5, 91), (9.9, 92)])
    assert not track.hot and track.pending_since == 0 and track.state == "normal"
    track = step(track, 90, 10, POLICY)
    assert track.hot and track.since == 10 and track.pending_since is None and track.state == "hot"


def test_a_dip_below_trip_restarts_the_hold() -> None:
    track = feed(start(0), [(0, 90), (8, 84.9), (9, 90), (18, 90)])
    assert not track.hot
    assert step(track, 90, 19, POLICY).hot


def test_recovers_only_after_the_resume_hold_at_or_below_resume() -> None:
    hot = start(0, hot=True)
    track = feed(hot, [(0, 75), (29, 70)])
    assert track.hot
    assert not step(track, 75, 30, POLICY).hot


def test_between_resume_and_trip_a_hot_node_stays_hot_and_its_resume_hold_restarts() -> None:
    track = feed(start(0, hot=True), [(0, 70), (20, 80), (21, 70), (50, 70)])
    assert track.hot
    assert not step(track, 70, 51, POLICY).hot


def test_missing_and_zero_readings_mark_stale_change_nothing_and_interrupt_a_hold() -> None:
    for reading in (None, 0.0):
        track = feed(start(0), [(0, 90), (5, reading)])
        assert track.stale and track.state == "stale" and not track.hot and track.pending_since is None
        assert track.temperature == 90  # the last usable reading is kept
        assert not step(track, 90, 11, POLICY).hot  # the hold started again at 11
        hot = step(start(0, hot=True), reading, 100, POLICY)
        assert hot.hot and hot.state == "stale"


readings = st.lists(
    st.tuples(st.floats(0.1, 10.0), st.one_of(st.none(), st.floats(-20.0, 150.0))), max_size=60
)


def _run(initial: Track, steps: list[tuple[float, float | None]]) -> list[Track]:
    now, track, seen = 0.0, initial, []
    for gap, value in steps:
        now += gap
        track = step(track, value, now, POLICY)
        seen.append(track)
    return seen


@given(st.lists(st.tuples(st.floats(0.1, 10.0), st.floats(-20.0, 84.99)), max_size=60))
def test_readings_below_trip_never_trip(steps: list[tuple[float, float]]) -> None:
    assert not any(track.hot for track in _run(start(0), list(steps)))


@given(st.lists(st.floats(0.1, 100.0), max_size=40), st.booleans())
def test_unusable_readings_never_change_the_decision(gaps: list[float], hot: bool) -> None:
    tracks = _run(start(0, hot=hot), [(gap, None) for gap in gaps])
    assert all(track.hot == hot and track.stale for track in tracks)


@given(readings)
def test_no_transition_comes_sooner_than_its_hold(steps: list[tuple[float, float | None]]) -> None:
    previous = start(0)
    for track in _run(previous, steps):
        if track.hot != previous.hot:
            hold = POLICY.trip_hold_seconds if track.hot else POLICY.resume_hold_seconds
            assert track.since - previous.since >= hold
        previous = track
