"""The per-node (or per-device) state machine: a hold of continuous valid readings before each change."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from nufi.thermal.policy import ThermalPolicy

ThermalState = Literal["normal", "hot", "stale"]


@dataclass(frozen=True)
class Track:
    hot: bool  # traffic cut
    since: float  # when `hot` last changed (or tracking began)
    pending_since: float | None  # when readings began to satisfy the opposite condition
    temperature: float | None  # the last usable reading
    stale: bool  # the last reading was unusable

    @property
    def state(self) -> ThermalState:
        if self.stale:
            return "stale"
        return "hot" if self.hot else "normal"


def start(now: float, *, hot: bool = False, since: float | None = None) -> Track:
    return Track(
        hot=hot, since=now if since is None else since, pending_since=None, temperature=None, stale=False
    )


def step(track: Track, reading: float | None, now: float, policy: ThermalPolicy) -> Track:
    """The track after one reading taken at `now`."""
    # Exporters report 0.0 for a field the device does not support: no reading, not a cold device.
    if reading is None or reading == 0.0:
        return replace(track, stale=True, pending_since=None)
    toward = reading <= policy.resume_celsius if track.hot else reading >= policy.trip_celsius
    if not toward:
        return replace(track, temperature=reading, stale=False, pending_since=None)
    pending = track.pending_since if track.pending_since is not None else now
    hold = policy.resume_hold_seconds if track.hot else policy.trip_hold_seconds
    if now - pending >= hold:
        return Track(hot=not track.hot, since=now, pending_since=None, temperature=reading, stale=False)
    return replace(track, temperature=reading, stale=False, pending_since=pending)
