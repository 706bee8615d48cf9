"""A dry run: what a policy would have done over recorded temperatures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nufi.thermal.hysteresis import start, step
from nufi.thermal.policy import ThermalPolicy


@dataclass(frozen=True)
class ReplayTransition:
    at: float
    to: Literal["hot", "normal"]
    temperature: float


@dataclass(frozen=True)
class NodeReplay:
    key: str
    transitions: tuple[ReplayTransition, ...]
    cut_seconds: float  # time spent hot; an interval still open counts until `end`
    max_temperature: float | None


def replay(
    series: Mapping[str, Sequence[tuple[float, float | None]]], policy: ThermalPolicy, *, end: float
) -> tuple[NodeReplay, ...]:
    return tuple(_one(key, series[key], policy, end) for key in sorted(series))


def _one(
    key: str, samples: Sequence[tuple[float, float | None]], policy: ThermalPolicy, end: float
) -> NodeReplay:
    ordered = sorted(samples, key=lambda sample: sample[0])
    track = start(ordered[0][0] if ordered else end)
    transitions: list[ReplayTransition] = []
    cut = 0.0
    hottest: float | None = None
    for at, reading in ordered:
        after = step(track, reading, at, policy)
        if after.temperature is not None and not after.stale:
            hottest = after.temperature if hottest is None else max(hottest, after.temperature)
        if after.hot != track.hot:
            assert after.temperature is not None  # a transition needs a valid reading
            transitions.append(ReplayTransition(at, "hot" if after.hot else "normal", after.temperature))
            if not after.hot:
                cut += at - track.since
        track = after
    if track.hot:
        cut += max(0.0, end - track.since)
    return NodeReplay(key, tuple(transitions), cut, hottest)
