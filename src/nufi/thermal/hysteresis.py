"""The hysteresis of one node (or device): normal → hot after the trip hold at or above trip, hot →
normal after the resume hold at or below resume. An unusable reading changes nothing but marks the
track stale and restarts any hold in progress (a hold is continuous usable readings)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from nufi.thermal.policy import ThermalPolicy

ThermalState = Literal["normal", "hot", "stale"]


@dataclass(frozen=True)
class Track:
    hot: bool
    since: float
    pending_since: float | None = None
    temperature: float | None = None
    stale: bool = False

    @property
    def state(self) -> ThermalState:
        return "stale" if self.stale else ("hot" if self.hot else "normal")


def start(now: float, *, hot: bool = False, since: float | None = None) -> Track:
    return Track(hot=hot, since=now if since is None else since)


def usable(reading: float | None) -> bool:
    # Exactly 0 °C is what real exporters give for a field the device does not support.
    return reading is not None and reading != 0.0


def step(track: Track, reading: float | None, now: float, policy: ThermalPolicy) -> Track:
    if reading is None or not usable(reading):
        return replace(track, stale=True, pending_since=None)
    toward = reading <= policy.resume_celsius if track.hot else reading >= policy.trip_celsius
    if not toward:
        return replace(track, temperature=reading, stale=False, pending_since=None)
    pending = now if track.pending_since is None else track.pending_since
    hold = policy.resume_hold_seconds if track.hot else policy.trip_hold_seconds
    if now - pending >= hold:
        return Track(hot=not track.hot, since=now, temperature=reading)
    return replace(track, temperature=reading, stale=False, pending_since=pending)
