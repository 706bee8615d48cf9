"""The dry run and the live controller decide alike: the same recorded per-device temperatures, fed to
the controller's pass (snapshot → temperatures → assessment) second by second and to the replay as the
dry run asks Prometheus for them (the hottest device per node, or each device, at its highest over each
replay step), give the same trips and restores; a short episode is not lost between two points."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import pytest

from nufi.monitoring.snapshot import DeviceEntry, NodeEntry, Snapshot, Summary
from nufi.thermal.assessment import TrackKey, assess
from nufi.thermal.hysteresis import Track
from nufi.thermal.policy import Scope, ThermalPolicy
from nufi.thermal.replay import ReplayKey, replay, replay_step, with_gaps
from nufi.thermal.temperatures import temperatures

Reading = Callable[[str, str, int], float]
DEVICES = {"n1": ("d0", "d1"), "n2": ("d0",)}
SECONDS = 300


def _policy(scope: Scope, trip_hold: int = 10) -> ThermalPolicy:
    return ThermalPolicy(
        enabled=True,
        trip_celsius=85,
        resume_celsius=75,
        trip_hold_seconds=trip_hold,
        resume_hold_seconds=20,
        scope=scope,
    )


def _recorded(node: str, device: str, t: int) -> float:
    """Each device's temperature at second t: n1/d1 hot for 40 s, then for exactly the trip hold, then
    for one second short of it; n1/d0 hot for 30 s later while d1 is cool; n2 cool but for one flicker."""
    if node == "n1" and device == "d1":
        hot = 20 <= t < 60 or 100 <= t <= 110 or 150 <= t < 159
        return 95.0 - (t % 3) if hot else 50.0 + (t % 7)
    if node == "n1":
        return 91.0 if 230 <= t < 260 else 60.0
    return 88.0 if t == 70 else 40.0


def _snapshot(t: int, reading: Reading) -> Snapshot:
    nodes = tuple(
        NodeEntry(
            node,
            len(devices),
            len(devices),
            0,
            (),
            None,
            tuple(DeviceEntry(d, temperature_celsius=reading(node, d, t)) for d in devices),
        )
        for node, devices in DEVICES.items()
    )
    return Snapshot("lpu", float(t), Summary.of(nodes), nodes, (), ())


def _live(policy: ThermalPolicy, reading: Reading) -> list[tuple[float, str, str | None, bool]]:
    tracks: Mapping[TrackKey, Track] = {}
    found = []
    for t in range(SECONDS):
        temps = temperatures(_snapshot(t, reading), max_age_seconds=60)
        result = assess(
            now=float(t),
            policies={"lpu": policy},
            temperatures={"lpu": temps},
            serving=(),
            tracks=tracks,
            tainted=set(),
        )
        tracks = result.tracks
        for transition in result.transitions:
            if (transition.key.device is None) == (policy.scope == "node"):
                found.append((float(t), transition.key.node, transition.key.device, transition.hot))
    return found


def _as_prometheus_answers(
    policy: ThermalPolicy, reading: Reading, step: float
) -> dict[ReplayKey, list[tuple[float, float | None]]]:
    """`max_over_time` over each step of the per-device series, grouped as the dry run asks."""
    points = math.floor((SECONDS - 1) / step)
    series: dict[ReplayKey, list[tuple[float, float | None]]] = {}
    for node, devices in DEVICES.items():
        keys = [(node, d) for d in devices] if policy.scope == "device" else [(node, None)]
        for key in keys:
            values = []
            for index in range(points + 1):
                at = index * step
                window = [t for t in range(SECONDS) if at - step < t <= at]
                wanted = devices if key[1] is None else (key[1],)
                values.append((at, max(reading(node, d, t) for t in window for d in wanted)))
            series[key] = with_gaps(values, 0.0, points * step, step)
    return series


def _replayed(
    policy: ThermalPolicy, reading: Reading, step: float
) -> list[tuple[float, str, str | None, bool]]:
    found = []
    for node in replay(_as_prometheus_answers(policy, reading, step), policy, end=SECONDS):
        for episode in node.episodes:
            found.append((episode.start, episode.node, episode.device, True))
            if episode.end is not None:
                found.append((episode.end, episode.node, episode.device, False))
    return _ordered(found)


def _ordered(found: list[tuple[float, str, str | None, bool]]) -> list[tuple[float, str, str | None, bool]]:
    return sorted(found, key=lambda item: (item[0], item[1], item[2] or "", item[3]))


@pytest.mark.parametrize("scope", ["node", "device"])
def test_at_the_scrape_interval_replay_and_controller_make_the_same_transitions(scope: Scope) -> None:
    policy = _policy(scope)
    live = _live(policy, _recorded)
    assert live, "the recording has episodes"
    assert _replayed(policy, _recorded, replay_step(policy.trip_hold_seconds, 1.0)) == _ordered(live)


@pytest.mark.parametrize("scope", ["node", "device"])
def test_at_a_coarser_step_every_episode_the_controller_acts_on_is_still_found(scope: Scope) -> None:
    """At a step of several seconds the replay finds each trip the controller made, at most one step
    later, and restores it no earlier: it errs towards a trip (an episode a step short of the hold may
    show as one), never towards missing one."""
    policy = _policy(scope)
    live = _ordered(_live(policy, _recorded))
    step = replay_step(policy.trip_hold_seconds, 5.0)
    assert step == 5.0
    replayed = _replayed(policy, _recorded, step)
    for at, node, device, hot in live:
        matching = [t for t, n, d, h in replayed if (n, d, h) == (node, device, hot) and at <= t <= at + step]
        assert matching, f"{'trip' if hot else 'restore'} of {node}/{device} at {at} s not replayed"
    assert len(replayed) >= len(live)


def test_the_peak_is_the_episodes_hottest_reading() -> None:
    policy = _policy("device")
    (n1_d0, n1_d1, _) = replay(_as_prometheus_answers(policy, _recorded, 1.0), policy, end=SECONDS)
    assert [e.peak_celsius for e in n1_d1.episodes] == [95.0, 95.0]
    assert [(e.start, e.end, e.peak_celsius) for e in n1_d0.episodes] == [(240.0, 280.0, 91.0)]


def test_the_step_divides_the_trip_hold_and_is_no_longer_than_the_scrape_interval() -> None:
    assert replay_step(10, 15.0) == 10.0
    assert replay_step(10, 3.0) == 2.5
    assert replay_step(7, 3.0) == 1.75
    assert replay_step(3600, 15.0) == 15.0
    assert replay_step(0, 15.0) == 15.0


def test_a_missing_point_is_an_unusable_reading() -> None:
    assert with_gaps([(0.0, 1.0), (20.0, 3.0)], 0.0, 20.0, 10.0) == [(0.0, 1.0), (10.0, None), (20.0, 3.0)]


def test_a_track_is_what_the_controller_keeps() -> None:
    # The replay runs the controller's own hysteresis: a trip hold restarts on an unusable reading.
    policy = _policy("node")
    samples = [(0.0, 90.0), (5.0, None), (10.0, 90.0), (15.0, 90.0), (20.0, 90.0)]
    (node,) = replay({"n1": samples}, policy, end=20)
    assert [(t.at, t.to) for t in node.transitions] == [(20.0, "hot")]
    assert Track(hot=False, since=0.0).state == "normal"
