"""A dry run: a policy fed through the hysteresis over recorded temperatures, per node (or device)."""

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
    # How long traffic would have been cut (a cut still open at `end` counts until `end`).
    cut_seconds: float
    max_temperature: float | None


def replay(
    series: Mapping[str, Sequence[tuple[float, float | None]]], policy: ThermalPolicy, *, end: float
) -> tuple[NodeReplay, ...]:
    found = []
    for key in sorted(series):
        samples = sorted(series[key])
        transitions: list[ReplayTransition] = []
        cut = 0.0
        track = None
        for at, value in samples:
            track = start(at) if track is None else track
            after = step(track, value, at, policy)
            if after.hot != track.hot and value is not None:
                transitions.append(ReplayTransition(at, "hot" if after.hot else "normal", value))
                if not after.hot:
                    cut += at - track.since
            track = after
        if track is not None and track.hot:
            cut += max(0.0, end - track.since)
        values = [v for _, v in samples if v is not None]
        found.append(NodeReplay(key, tuple(transitions), cut, max(values) if values else None))
    return tuple(found)
