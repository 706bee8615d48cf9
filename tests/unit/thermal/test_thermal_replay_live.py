"""The dry run and the live controller decide alike: the same recorded per-device readings, fed to the
controller's pass (snapshot → temperatures, health and the own condition → assessment with its breaker)
second by second and to the replay as the dry run asks Prometheus for them (the worst device per node,
or each device, at its worst over each replay step), give the same trips, restores and breaker holds; a
short episode is not lost between two points."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import pytest

from nufi.monitoring.snapshots.snapshot import DeviceEntry, NodeEntry, Snapshot, Summary
from nufi.thermal.policy import Breaker, CustomCondition, Scope, ThermalPolicy, UnhealthyCondition
from nufi.thermal.protection.assessment import TrackKey, assess
from nufi.thermal.protection.hysteresis import Track
from nufi.thermal.protection.replay import ReplayKey, replay, replay_step, with_gaps
from nufi.thermal.protection.temperatures import Readings, health, temperatures

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
        breaker=Breaker(max_node_share=1.0),
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
    # No breaker in these: every node may be cut (the breaker's own test is below).
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
    ran = replay({"temperature": _as_prometheus_answers(policy, reading, step)}, policy, end=SECONDS)
    for node in ran.nodes:
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
    ran = replay({"temperature": _as_prometheus_answers(policy, _recorded, 1.0)}, policy, end=SECONDS)
    (n1_d0, n1_d1, _) = ran.nodes
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
    (node,) = replay({"temperature": {"n1": samples}}, policy, end=20).nodes
    assert [(t.at, t.to) for t in node.transitions] == [(20.0, "hot")]
    assert Track(hot=False, since=0.0).state == "normal"


# Every condition and the breaker: three nodes of which one may be cut at once. n1 runs hot, n2 has a
# device reading unhealthy while n1 is still cut, n3 trips the admin's own condition after both.
THREE = {"n1": ("d0",), "n2": ("d0", "d1"), "n3": ("d0",)}


def _temperature(node: str, device: str, t: int) -> float:
    return 92.0 if node == "n1" and 20 <= t < 60 else 55.0


def _healthy(node: str, device: str, t: int) -> bool:
    return not (node == "n2" and device == "d1" and 40 <= t < 90)


def _errors(node: str, device: str, t: int) -> float:
    return 7.0 if node == "n3" and 150 <= t < 180 else 0.0


def _every_condition() -> ThermalPolicy:
    return ThermalPolicy(
        enabled=True,
        trip_celsius=85,
        resume_celsius=75,
        trip_hold_seconds=10,
        resume_hold_seconds=20,
        unhealthy=UnhealthyCondition(enabled=True, trip_hold_seconds=5, resume_hold_seconds=10),
        custom=CustomCondition(
            enabled=True,
            name="ecc",
            expression="ecc",
            trip_at=5,
            resume_at=1,
            trip_hold_seconds=5,
            resume_hold_seconds=5,
        ),
        breaker=Breaker(max_node_share=0.34),
    )


def _three_snapshot(t: int) -> Snapshot:
    nodes = tuple(
        NodeEntry(
            node,
            len(devices),
            len(devices),
            0,
            (),
            None,
            tuple(
                DeviceEntry(
                    d,
                    temperature_celsius=_temperature(node, d, t),
                    health="ok" if _healthy(node, d, t) else "unhealthy",
                )
                for d in devices
            ),
        )
        for node, devices in THREE.items()
    )
    return Snapshot("lpu", float(t), Summary.of(nodes), nodes, (), ())


def _own_readings(t: int) -> Readings:
    """What `custom_readings` makes of the expression: each device, each node its worst device."""
    devices = {(n, d): _errors(n, d, t) for n, ds in THREE.items() for d in ds}
    nodes = {n: max(_errors(n, d, t) for d in ds) for n, ds in THREE.items()}
    return Readings(nodes, devices, {})


Moment = tuple[float, str, str, bool]


def _live_with_breaker(policy: ThermalPolicy) -> tuple[list[Moment], list[tuple[float, tuple[str, ...]]]]:
    """Transitions (at, node, condition, tripped) and the breaker's held-back nodes whenever they change.
    The nodes protection cut in one pass are what the next pass finds cut."""
    tracks: Mapping[TrackKey, Track] = {}
    cut: set[str] = set()
    transitions: list[Moment] = []
    waiting: list[tuple[float, tuple[str, ...]]] = []
    for t in range(SECONDS):
        snapshot = _three_snapshot(t)
        result = assess(
            now=float(t),
            policies={"lpu": policy},
            temperatures={"lpu": temperatures(snapshot, max_age_seconds=60)},
            serving=(),
            tracks=tracks,
            tainted=cut,
            health={"lpu": health(snapshot, max_age_seconds=60)},
            custom={"lpu": _own_readings(t)},
        )
        tracks = result.tracks
        transitions += [(float(t), x.key.node, x.key.condition, x.hot) for x in result.transitions]
        breaker = result.types[0].breaker
        assert breaker is not None
        cut = set(breaker.cut)
        if (waiting[-1][1] if waiting else ()) != breaker.waiting:
            waiting.append((float(t), breaker.waiting))
    return transitions, waiting


def _recording(value: Callable[[str, str, int], float]) -> dict[ReplayKey, list[tuple[float, float | None]]]:
    """Each node's worst device at each second, as the dry run's range queries give it at a 1 s step."""
    return {
        node: [(float(t), max(value(node, d, t) for d in devices)) for t in range(SECONDS)]
        for node, devices in THREE.items()
    }


def test_every_condition_and_the_breaker_replay_as_the_controller_decided() -> None:
    policy = _every_condition()
    live, held_live = _live_with_breaker(policy)
    ran = replay(
        {
            "temperature": _recording(_temperature),
            "unhealthy": _recording(lambda n, d, t: 0.0 if _healthy(n, d, t) else 1.0),
            "custom": _recording(_errors),
        },
        policy,
        end=SECONDS,
    )
    replayed = sorted(
        (tr.at, node.key, tr.condition, tr.to != "normal") for node in ran.nodes for tr in node.transitions
    )
    assert replayed == sorted(live)
    assert {c for _, _, c, _ in live} == {"temperature", "unhealthy", "custom"}
    # The breaker held n2 back while n1 was cut, and let it go as soon as n1 was restored.
    held_replayed = []
    for hold in ran.breaker:
        held_replayed.append((hold.start, hold.waiting))
        if hold.end is not None:
            held_replayed.append((hold.end, ()))
    assert held_replayed == held_live == [(45.0, ("n2",)), (80.0, ())]
    n2 = next(node for node in ran.nodes if node.key == "n2")
    assert n2.held_seconds == 35 and n2.cut_seconds == 100 - 80
