"""Range reads shared: every chart of a type asks Prometheus once per step, however many people look.

A range is aligned to its step before it is asked: the end down to a multiple of the step (counted
from the Unix epoch), the start that many whole steps before it that the asked span needs. Two asks
within one step of each other therefore name the same window, and the window is one Prometheus
`query_range` per (type, expression, window, step) — the expression carries the grouping and the node
and device filters, so asks that differ there never share.

Concurrent identical asks share the one query in flight (single flight); a landed answer is kept,
least recently used first out, while its window is still the newest one at its step, that is until the
next step boundary, when a new ask names a new window anyway. A window that is not the current one
(an explicit range in the past, or reaching into the future) is kept for one step after it was asked.
The cache is bounded by entries and by the points it holds, so a per-device range over thousands of
devices is shared while in flight but never held. Failures are never kept.

Range results carry only node and device labels (the expressions group by them), never pod or namespace
names, so one answer serves every viewer alike: there is nothing to mask.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from fractions import Fraction

from nufi.monitoring.flight import SingleFlight
from nufi.prom import QueryResult

DEFAULT_MAX_ENTRIES = 256
# About 100 MB of parsed points: a 1,000-node range at 500 points per series is half of it.
DEFAULT_MAX_POINTS = 1_000_000

Fetch = Callable[[str, float, float, float], Awaitable[QueryResult]]


@dataclass(frozen=True)
class Window:
    """The instants start, start + step, ... end of a range query."""

    start: float
    end: float
    step: float


def align(start: float, end: float, step: float) -> Window:
    """The window at `step` whose end is `end` rounded down to a multiple of `step` and whose start is
    the whole steps the span `end - start` needs before it: it is at least as long as the span, starts
    no later than `start` (both to the millisecond, Prometheus' resolution) and ends no later than
    `end`, less than one step before it. Exact arithmetic, so asks within one step name bit-for-bit
    the same window."""
    # The step as written (15, 0.001), not the binary float nearest it, which is a hair off.
    exact_step = Fraction(repr(step))
    steps_to_end = math.floor(Fraction(end) / exact_step)
    # In whole milliseconds: `now - 3600` and back is 3600 give or take a rounding, which must not
    # add a step to some asks of the last hour and not to others.
    span = Fraction(round((end - start) * 1000), 1000)
    steps_in_span = math.ceil(span / exact_step)
    aligned_end = steps_to_end * exact_step
    # float() of a Fraction rounds to nearest and is monotonic: the bounds stay on the same side.
    return Window(float(aligned_end - steps_in_span * exact_step), float(aligned_end), step)


def expires_at(window: Window, fetched_at: float) -> float:
    """When an answer for `window`, asked at `fetched_at`, stops being served: at the next step
    boundary while the window is the current one, one step after it was asked otherwise."""
    if window.end <= fetched_at < window.end + window.step:
        return window.end + window.step
    return fetched_at + window.step


RangeKey = tuple[str, str, float, float, float]


@dataclass
class _Entry:
    result: QueryResult
    points: int
    expires_at: float


@dataclass(frozen=True)
class RangeCacheStats:
    hits: int
    queries: int
    entries: int
    points: int


class RangeCache:
    """Aligned range answers, each asked of Prometheus once while it is current."""

    def __init__(
        self,
        fetch: Fetch,
        *,
        clock: Callable[[], float],
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_points: int = DEFAULT_MAX_POINTS,
    ) -> None:
        self._fetch = fetch
        self._clock = clock
        self._max_entries = max_entries
        self._max_points = max_points
        self._entries: OrderedDict[RangeKey, _Entry] = OrderedDict()
        self._points = 0
        self._flights: SingleFlight[RangeKey, QueryResult] = SingleFlight()
        self._hits = 0
        self._queries = 0

    @property
    def stats(self) -> RangeCacheStats:
        return RangeCacheStats(self._hits, self._queries, len(self._entries), self._points)

    async def read(self, scope: str, expression: str, window: Window) -> QueryResult:
        """The answer to `expression` over `window` (already aligned), from the cache, the identical
        ask in flight, or one new query. `scope` (the device type) keeps types apart."""
        key: RangeKey = (scope, expression, window.start, window.end, window.step)
        entry = self._entries.get(key)
        if entry is not None:
            if self._clock() < entry.expires_at:
                self._entries.move_to_end(key)
                self._hits += 1
                return entry.result
            self._drop(key)
        return await self._flights.run(key, lambda: self._ask(key, expression, window))

    async def _ask(self, key: RangeKey, expression: str, window: Window) -> QueryResult:
        asked_at = self._clock()
        self._queries += 1
        result = await self._fetch(expression, window.start, window.end, window.step)
        self._keep(key, _Entry(result, _points_of(result), expires_at(window, asked_at)))
        return result

    def _keep(self, key: RangeKey, entry: _Entry) -> None:
        if entry.points > self._max_points or self._max_entries < 1:
            return
        self._drop(key)
        self._entries[key] = entry
        self._points += entry.points
        now = self._clock()
        for stale in [k for k, e in self._entries.items() if e.expires_at <= now]:
            self._drop(stale)
        while len(self._entries) > self._max_entries or self._points > self._max_points:
            self._drop(next(iter(self._entries)))

    def _drop(self, key: RangeKey) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._points -= entry.points


def _points_of(result: QueryResult) -> int:
    return sum(len(series.points) for series in result.series) + len(result.samples)
