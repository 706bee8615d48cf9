"""A dry run: a policy fed through the controller's decisions over recorded readings.

Each condition of the policy (temperature, unhealthy, the admin's own) is replayed per node (or device,
with scope `device`) through the hysteresis the controller runs (`hysteresis.step`), with that
condition's limits. The recording is what protection reads live at its worst over each step of the range
(`replay_step`): an episode at or beyond the trip for the trip hold spans at least the trip hold of
consecutive points, so the same hysteresis trips on it however short the step's sampling would have made
it look. The circuit breaker then decides, with the controller's own `breaker.hold`, which affected
nodes would have been cut and which held back, each time the set of affected nodes changes.

The breaker's share of a deployment's replicas is not replayed: where replicas ran at the time is not in
Prometheus' history.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.breaker import hold
from nufi.thermal.protection.conditions import TRIPPED_STATE, Condition, TrippedState, limits_for
from nufi.thermal.protection.hysteresis import Limits, start, step

# A node, or a (node, device) pair with scope `device`.
ReplayKey = str | tuple[str, str | None]
Recording = Mapping[ReplayKey, Sequence[tuple[float, float | None]]]
Interval = tuple[float, float]


@dataclass(frozen=True)
class ReplayTransition:
    at: float
    to: TrippedState | str
    # The reading that made it: °C for temperature, 1/0 for unhealthy, the expression's value.
    value: float
    condition: Condition = "temperature"

    @property
    def temperature(self) -> float | None:
        return self.value if self.condition == "temperature" else None


@dataclass(frozen=True)
class Episode:
    """One would-be trip of one condition: from `start` to `end` (None: still tripped at the range's
    end); `peak` is the worst reading from the first one at or beyond the trip to the restore;
    `held_seconds` how long of it the breaker would have kept the traffic on."""

    node: str
    device: str | None
    start: float
    end: float | None
    peak: float
    condition: Condition = "temperature"
    held_seconds: float = 0.0

    @property
    def peak_celsius(self) -> float | None:
        return self.peak if self.condition == "temperature" else None


@dataclass(frozen=True)
class NodeReplay:
    key: str
    transitions: tuple[ReplayTransition, ...]
    # How long traffic would have been cut (a cut still open at `end` counts until `end`).
    cut_seconds: float
    max_temperature: float | None
    episodes: tuple[Episode, ...] = ()
    # How long a condition tripped it while the breaker kept its traffic on.
    held_seconds: float = 0.0


@dataclass(frozen=True)
class BreakerHold:
    """A stretch during which more nodes were affected than the breaker allows: `waiting` kept their
    traffic; `end` None: still so at the range's end."""

    start: float
    end: float | None
    allowed: int
    total_nodes: int
    waiting: tuple[str, ...]


@dataclass(frozen=True)
class Replay:
    nodes: tuple[NodeReplay, ...]
    # Every would-be trip, by start.
    episodes: tuple[Episode, ...]
    breaker: tuple[BreakerHold, ...] = ()


def replay_step(trip_hold_seconds: float, finest_seconds: float) -> float:
    """The step of a replay: no longer than `finest_seconds` (the scrape interval) and a whole number
    of milliseconds dividing the trip hold, so a hold's worth of readings spans whole steps."""
    finest_ms = max(1, math.floor(finest_seconds * 1000))
    hold_ms = round(trip_hold_seconds * 1000)
    if hold_ms <= 0:
        return finest_ms / 1000
    parts = math.ceil(hold_ms / finest_ms)
    while hold_ms % parts:
        parts += 1
    return hold_ms // parts / 1000


def common_hold(holds: Iterable[float]) -> float:
    """The longest span every trip hold is a whole number of (their greatest common divisor, in whole
    milliseconds): a step dividing it divides each condition's hold. 0 when no hold is set."""
    return math.gcd(*(round(h * 1000) for h in holds if h > 0)) / 1000


def with_gaps(
    points: Sequence[tuple[float, float]], start: float, end: float, step_seconds: float
) -> list[tuple[float, float | None]]:
    """`points` on the range's grid with None where a point is missing: no reading over a whole step,
    which the controller sees as an unusable reading (a hold in progress restarts)."""
    found = {round(t * 1000): v for t, v in points}
    grid = []
    count = math.floor((end - start) / step_seconds + 1e-9) + 1
    for index in range(count):
        at = start + index * step_seconds
        grid.append((at, found.pop(round(at * 1000), None)))
    # A point off the grid (Prometheus' rounding): kept where it falls.
    grid.extend((t / 1000, v) for t, v in found.items())
    return sorted(grid, key=lambda point: point[0])


def replay(
    recordings: Mapping[Condition, Recording],
    policy: ThermalPolicy,
    *,
    end: float,
    total_nodes: int | None = None,
) -> Replay:
    """Replay each condition's recording under `policy`. `total_nodes` is the breaker's whole (default:
    every node recorded)."""
    tracked = [
        _track(key, condition, recording[key], limits_for(policy, condition), end)
        for condition, recording in recordings.items()
        for key in recording
    ]
    nodes_seen = {t.node for t in tracked}
    holds = _breaker(tracked, policy, total_nodes if total_nodes is not None else len(nodes_seen), end)
    waiting: dict[str, list[Interval]] = {}
    for held in holds:
        for node in held.waiting:
            waiting.setdefault(node, []).append((held.start, end if held.end is None else held.end))
    by_key: dict[str, list[_Tracked]] = {}
    for one in tracked:
        by_key.setdefault(one.name, []).append(one)
    nodes = tuple(_node(name, by_key[name], waiting, end) for name in sorted(by_key))
    episodes = tuple(sorted((e for n in nodes for e in n.episodes), key=lambda e: (e.start, e.node)))
    return Replay(nodes, episodes, holds)


@dataclass(frozen=True)
class _Tracked:
    name: str
    node: str
    condition: Condition
    transitions: tuple[ReplayTransition, ...]
    episodes: tuple[Episode, ...]
    max_temperature: float | None

    def tripped(self, end: float) -> list[Interval]:
        return [(e.start, end if e.end is None else e.end) for e in self.episodes]


def _name(key: ReplayKey) -> str:
    if isinstance(key, str):
        return key
    node, device = key
    return node if device is None else f"{node}/{device}"


def _track(
    key: ReplayKey,
    condition: Condition,
    recorded: Sequence[tuple[float, float | None]],
    limits: Limits,
    end: float,
) -> _Tracked:
    node, device = (key, None) if isinstance(key, str) else key
    samples = sorted(recorded)
    transitions: list[ReplayTransition] = []
    episodes: list[Episode] = []
    track = None
    # The readings since the run at or beyond the trip that is (or may become) an episode began.
    run: list[float] = []
    for at, value in samples:
        track = start(at) if track is None else track
        after = step(track, value, at, limits)
        toward_trip = after.hot or after.pending_since is not None
        if value is not None and (track.hot or toward_trip):
            run.append(value)
        elif not track.hot:
            run = []
        if after.hot != track.hot and value is not None:
            transitions.append(
                ReplayTransition(at, TRIPPED_STATE[condition] if after.hot else "normal", value, condition)
            )
            if after.hot:
                episodes.append(Episode(node, device, at, None, max(run), condition))
            else:
                episodes[-1] = Episode(node, device, episodes[-1].start, at, max(run), condition)
                run = []
        track = after
    if track is not None and track.hot and episodes and run:
        episodes[-1] = Episode(node, device, episodes[-1].start, None, max(run), condition)
    values = [v for _, v in samples if v is not None]
    hottest = max(values) if values and condition == "temperature" else None
    return _Tracked(_name(key), node, condition, tuple(transitions), tuple(episodes), hottest)


def _breaker(
    tracked: Sequence[_Tracked], policy: ThermalPolicy, total_nodes: int, end: float
) -> tuple[BreakerHold, ...]:
    """The breaker at each moment the affected nodes change: a node is affected while any condition
    trips it (or one of its devices), since the earliest of its open trips, as the controller counts."""
    per_node: dict[str, list[Interval]] = {}
    for one in tracked:
        per_node.setdefault(one.node, []).extend(one.tripped(end))
    moments = sorted({t for spans in per_node.values() for span in spans for t in span if t < end})
    holds: list[BreakerHold] = []
    cut: set[str] = set()
    for moment in moments:
        affected = {}
        for node, spans in per_node.items():
            open_since = [a for a, b in spans if a <= moment < b]
            if open_since:
                affected[node] = min(open_since)
        status = hold(affected, cut, total_nodes, policy.breaker)
        cut = set(status.cut)
        if holds and holds[-1].end is None and holds[-1].waiting != status.waiting:
            holds[-1] = _closed(holds[-1], moment)
        if status.waiting and (not holds or holds[-1].end is not None):
            holds.append(BreakerHold(moment, None, status.allowed, status.total_nodes, status.waiting))
    return tuple(holds)


def _closed(held: BreakerHold, at: float) -> BreakerHold:
    return BreakerHold(held.start, at, held.allowed, held.total_nodes, held.waiting)


def _node(
    name: str, tracked: Sequence[_Tracked], waiting: Mapping[str, Sequence[Interval]], end: float
) -> NodeReplay:
    node = tracked[0].node
    held_spans = waiting.get(node, ())
    tripped = _union([span for one in tracked for span in one.tripped(end)])
    held = _measure(_intersection(tripped, _union(list(held_spans))))
    episodes = tuple(
        Episode(
            e.node,
            e.device,
            e.start,
            e.end,
            e.peak,
            e.condition,
            _measure(_intersection([(e.start, end if e.end is None else e.end)], _union(list(held_spans)))),
        )
        for one in tracked
        for e in one.episodes
    )
    temperatures = [t.max_temperature for t in tracked if t.max_temperature is not None]
    return NodeReplay(
        name,
        tuple(sorted((t for one in tracked for t in one.transitions), key=lambda t: (t.at, t.condition))),
        _measure(tripped) - held,
        max(temperatures) if temperatures else None,
        tuple(sorted(episodes, key=lambda e: (e.start, e.condition))),
        held,
    )


def _union(spans: list[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _intersection(left: list[Interval], right: list[Interval]) -> list[Interval]:
    return [(max(a, c), min(b, d)) for a, b in left for c, d in right if max(a, c) < min(b, d)]


def _measure(spans: list[Interval]) -> float:
    return sum(b - a for a, b in spans)
