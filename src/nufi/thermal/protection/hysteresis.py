"""The hysteresis of one node (or device) under one condition: normal → tripped after the trip hold at
or above `trip`, tripped → normal after the resume hold at or below `resume`. An unusable reading
changes nothing but marks the track stale and restarts any hold in progress (a hold is continuous usable
readings).

For temperature a tripped track is "hot" (°C against the policy's trip and resume temperatures); for
health it is "unhealthy" (1 against 0: a device reading unhealthy trips, one reading healthy again
resumes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from nufi.thermal.policy import ThermalPolicy

ThermalState = Literal["normal", "hot", "stale"]


@dataclass(frozen=True)
class Limits:
    trip: float
    resume: float
    trip_hold_seconds: int
    resume_hold_seconds: int
    # Exactly 0 is what real exporters give for a temperature field a device does not support: no
    # reading. A health reading of 0 (healthy) is a reading like any other.
    zero_unusable: bool = True


def temperature_limits(policy: ThermalPolicy) -> Limits:
    return Limits(
        policy.trip_celsius, policy.resume_celsius, policy.trip_hold_seconds, policy.resume_hold_seconds
    )


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


def usable(reading: float | None, limits: Limits | None = None) -> bool:
    zero_unusable = True if limits is None else limits.zero_unusable
    return reading is not None and not (zero_unusable and reading == 0.0)


def step(track: Track, reading: float | None, now: float, limits: Limits) -> Track:
    if reading is None or not usable(reading, limits):
        return replace(track, stale=True, pending_since=None)
    toward = reading <= limits.resume if track.hot else reading >= limits.trip
    if not toward:
        return replace(track, temperature=reading, stale=False, pending_since=None)
    pending = now if track.pending_since is None else track.pending_since
    hold = limits.resume_hold_seconds if track.hot else limits.trip_hold_seconds
    if now - pending >= hold:
        return Track(hot=not track.hot, since=now, temperature=reading)
    return replace(track, temperature=reading, stale=False, pending_since=pending)
