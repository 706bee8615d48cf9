"""A dry run: a policy fed through the hysteresis over recorded temperatures, per node (or device).

The recording is what thermal control reads live, the hottest device of each node (or each device with
scope `device`), as the highest value over each step of the range (`replay_step`): an episode at or
above the trip temperature for the trip hold spans at least the trip hold of consecutive points, so the
same hysteresis the controller runs (`hysteresis.step`) trips on it however short the step's sampling
would have made it look.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nufi.thermal.hysteresis import start, step
from nufi.thermal.policy import ThermalPolicy

# A node, or a (node, device) pair with scope `device`.
ReplayKey = str | tuple[str, str | None]


@dataclass(frozen=True)
class ReplayTransition:
    at: float
    to: Literal["hot", "normal"]
    temperature: float


@dataclass(frozen=True)
class Episode:
    """One would-be trip: traffic cut at `start`, restored at `end` (None: still cut at the range's
    end); `peak_celsius` is the highest reading from the first one at or above the trip temperature
    to the restore."""

    node: str
    device: str | None
    start: float
    end: float | None
    peak_celsius: float


@dataclass(frozen=True)
class NodeReplay:
    key: str
    transitions: tuple[ReplayTransition, ...]
    # How long traffic would have been cut (a cut still open at `end` counts until `end`).
    cut_seconds: float
    max_temperature: float | None
    episodes: tuple[Episode, ...] = ()


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
    series: Mapping[ReplayKey, Sequence[tuple[float, float | None]]], policy: ThermalPolicy, *, end: float
) -> tuple[NodeReplay, ...]:
    return tuple(_one(key, series[key], policy, end) for key in sorted(series, key=_name))


def _name(key: ReplayKey) -> str:
    if isinstance(key, str):
        return key
    node, device = key
    return node if device is None else f"{node}/{device}"


def _one(
    key: ReplayKey, recorded: Sequence[tuple[float, float | None]], policy: ThermalPolicy, end: float
) -> NodeReplay:
    node, device = (key, None) if isinstance(key, str) else key
    samples = sorted(recorded)
    transitions: list[ReplayTransition] = []
    episodes: list[Episode] = []
    cut = 0.0
    track = None
    # The readings since the run at or above the trip that is (or may become) an episode began.
    run: list[float] = []
    for at, value in samples:
        track = start(at) if track is None else track
        after = step(track, value, at, policy)
        toward_trip = after.hot or after.pending_since is not None
        if value is not None and (track.hot or toward_trip):
            run.append(value)
        elif not track.hot:
            run = []
        if after.hot != track.hot and value is not None:
            transitions.append(ReplayTransition(at, "hot" if after.hot else "normal", value))
            if after.hot:
                episodes.append(Episode(node, device, at, None, max(run)))
            else:
                cut += at - track.since
                episodes[-1] = Episode(node, device, episodes[-1].start, at, max(run))
                run = []
        track = after
    if track is not None and track.hot:
        cut += max(0.0, end - track.since)
        if episodes and run:
            episodes[-1] = Episode(node, device, episodes[-1].start, None, max(run))
    values = [v for _, v in samples if v is not None]
    return NodeReplay(_name(key), tuple(transitions), cut, max(values) if values else None, tuple(episodes))
