"""What the run counts: every request by route (answers, lost races, errors, latencies), stream
events, dashboard frames and the snapshots read."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

ERROR_SAMPLES_PER_ROUTE = 3


@dataclass
class RouteStats:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    ok: int = 0
    not_modified: int = 0
    raced: int = 0
    errors: int = 0
    samples: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return self.ok + self.raced + self.errors


class Tally:
    """Every request of the run by route, in the order routes were first seen."""

    def __init__(self) -> None:
        self.routes: dict[str, RouteStats] = {}
        self.stream_events: Counter[str] = Counter()
        self.events_per_stream: list[int] = []
        # Per stream, the longest time without a snapshot event (to the end of the run, for the last).
        self.longest_gaps: list[float] = []
        # Range requests answered, by metric, and the device type saves that went through.
        self.ranges: Counter[str] = Counter()
        # The distinct charts those ranges drew: (metric, grouping, window start, end and step) as the
        # server answered them, its window aligned to the step so that readers of one chart share it.
        self.range_windows: set[tuple[str, str, str, str, float]] = set()
        self.saves = 0
        # Snapshots read (REST bodies and stream events), and those carrying errors, by their source:
        # the refresher serves the last good snapshot with the failure first in `errors`.
        self.snapshots = 0
        self.degraded = 0
        self.degraded_sources: Counter[str] = Counter()
        self.dashboard_frames: list[int] = []

    def look_at(self, body: Any) -> None:
        self.snapshots += 1
        errors = body.get("errors") if isinstance(body, dict) else None
        if errors:
            self.degraded += 1
            for error in errors:
                self.degraded_sources[str(error.get("source", "?")) if isinstance(error, dict) else "?"] += 1

    def charted(self, body: Any) -> None:
        """Count a range answered, and the chart (metric, grouping and window) it belongs to."""
        if isinstance(body, dict):
            self.ranges[str(body.get("metric"))] += 1
            window = (str(body.get("start")), str(body.get("end")), float(body.get("step_seconds") or 0))
            self.range_windows.add((str(body.get("metric")), str(body.get("by")), *window))

    def route(self, name: str) -> RouteStats:
        return self.routes.setdefault(name, RouteStats())

    def ok(self, name: str, status: int, seconds: float) -> None:
        stats = self.route(name)
        stats.latencies.append(seconds)
        stats.statuses[status] += 1
        stats.ok += 1
        if status == 304:
            stats.not_modified += 1

    def lost_race(self, name: str, status: int, seconds: float) -> None:
        stats = self.route(name)
        stats.latencies.append(seconds)
        stats.statuses[status] += 1
        stats.raced += 1

    def error(self, name: str, status: int | None, seconds: float | None, detail: str) -> None:
        stats = self.route(name)
        if seconds is not None:
            stats.latencies.append(seconds)
        if status is not None:
            stats.statuses[status] += 1
        stats.errors += 1
        if len(stats.samples) < ERROR_SAMPLES_PER_ROUTE:
            shown = f"HTTP {status}" if status is not None else "no answer"
            stats.samples.append(f"{shown}: {' '.join(detail.split())[:400]}")

    @property
    def errors(self) -> int:
        return sum(stats.errors for stats in self.routes.values())


def answered(
    tally: Tally,
    route: str,
    response: httpx.Response,
    seconds: float,
    expected: Iterable[int],
    *,
    race: bool = False,
) -> bool:
    """Count `response`: True when its status is one the route should answer. With `race`, a 409 from
    a stale revision is a lost race (and counts as answered)."""
    status = response.status_code
    if status in expected:
        tally.ok(route, status, seconds)
        return True
    if race and status == 409 and _stale_revision(response):
        tally.lost_race(route, status, seconds)
        return True
    tally.error(route, status, seconds, response.text)
    return False


def _stale_revision(response: httpx.Response) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and "current_revision" in body and "expected_revision" in body


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1))]
