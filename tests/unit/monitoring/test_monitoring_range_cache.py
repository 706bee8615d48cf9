"""Range reads shared: the window's alignment, and one query per window however many readers ask."""

from __future__ import annotations

import asyncio
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.monitoring.ranges.cache import RangeCache, Window, align, expires_at
from nufi.prom import PrometheusUnavailable, QueryResult, Series

# A multiple of 15 s, the step of the windows below.
NOW = 1_700_000_100.0
instants = st.floats(min_value=0, max_value=4e9, allow_nan=False)
spans = st.floats(min_value=0.001, max_value=31 * 86400.0, allow_nan=False)
steps = st.one_of(
    st.integers(min_value=1, max_value=86400).map(float),
    st.integers(min_value=1, max_value=999_999).map(lambda ms: ms / 1000),
)


@given(end=instants, span=spans, step=steps)
def test_an_aligned_window_covers_the_span_asked_and_ends_within_a_step_before_its_end(
    end: float, span: float, step: float
) -> None:
    start = end - span
    window = align(start, end, step)
    # To the millisecond, Prometheus' resolution.
    assert window.start <= start + 0.0005
    assert window.end <= end
    # Less than a step, but for the float subtraction's own rounding (0.6 - 0.599 is a hair over 0.001).
    assert end - window.end < step + 4 * math.ulp(end)
    assert window.end - window.start >= end - start - 0.0005
    assert window.step == step


@given(end=instants, span=spans, step=steps, later=st.floats(min_value=0, max_value=1))
def test_asks_within_one_step_name_the_same_window(
    end: float, span: float, step: float, later: float
) -> None:
    first = align(end - span, end, step)
    # Any ask of the same span ending before the next boundary.
    other_end = first.end + later * step * 0.999
    if other_end < end:
        other_end = end
    assert align(other_end - span, other_end, step) == first


def test_the_default_hour_at_fifteen_seconds_ends_on_a_boundary() -> None:
    window = align(NOW - 3600 + 7.5, NOW + 7.5, 15.0)
    assert window == Window(NOW - 3600, NOW, 15.0)


@given(
    now=st.floats(min_value=1e9, max_value=4e9, allow_nan=False),
    later=st.floats(min_value=0, max_value=0.0004),
)
def test_an_hour_whose_end_is_read_a_moment_after_its_start_is_still_240_steps(
    now: float, later: float
) -> None:
    # A chart computes its start from its clock, the service its end from its own a moment later.
    window = align(now - 3600, now + later, 15.0)
    assert window.end - window.start == 3600


def test_an_answer_lives_until_the_next_boundary_or_one_step_when_its_window_is_not_current() -> None:
    current = Window(NOW - 3600, NOW, 15.0)
    assert expires_at(current, NOW + 4) == NOW + 15
    assert expires_at(Window(NOW - 7200, NOW - 3600, 15.0), NOW) == NOW + 15
    assert expires_at(Window(NOW, NOW + 3600, 15.0), NOW - 1) == NOW + 14


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


class Prometheus:
    """Counts range queries; each answers one series of `points` points, after the test lets it."""

    def __init__(self, points: int = 3) -> None:
        self.asked: list[tuple[str, float, float, float]] = []
        self.points = points
        self.release = asyncio.Event()
        self.release.set()
        self.failure: Exception | None = None

    async def query_range(self, promql: str, start: float, end: float, step: float) -> QueryResult:
        self.asked.append((promql, start, end, step))
        await self.release.wait()
        if self.failure is not None:
            raise self.failure
        points = tuple((start + i * step, float(i)) for i in range(self.points))
        return QueryResult("matrix", series=(Series(metric={"node": "n1"}, points=points),))


HOUR = align(NOW - 3600, NOW, 15.0)


async def test_fifty_concurrent_reads_of_one_window_ask_prometheus_once() -> None:
    prometheus, clock = Prometheus(), Clock()
    cache = RangeCache(prometheus.query_range, clock=clock)
    prometheus.release.clear()
    reads = [asyncio.ensure_future(cache.read("gpu", "up", HOUR)) for _ in range(50)]
    await asyncio.sleep(0)
    prometheus.release.set()
    answers = await asyncio.gather(*reads)
    assert len(prometheus.asked) == 1
    assert all(answer is answers[0] for answer in answers)


async def test_a_read_is_served_until_the_next_step_boundary_then_asked_again() -> None:
    prometheus, clock = Prometheus(), Clock()
    cache = RangeCache(prometheus.query_range, clock=clock)
    await cache.read("gpu", "up", HOUR)
    clock.now = NOW + 14.9
    await cache.read("gpu", "up", HOUR)
    assert len(prometheus.asked) == 1
    clock.now = NOW + 15
    await cache.read("gpu", "up", HOUR)
    assert len(prometheus.asked) == 2
    assert cache.stats.hits == 1


async def test_types_expressions_and_windows_are_never_shared() -> None:
    prometheus = Prometheus()
    cache = RangeCache(prometheus.query_range, clock=Clock())
    await cache.read("gpu", "up", HOUR)
    await cache.read("npu", "up", HOUR)
    await cache.read("gpu", "down", HOUR)
    await cache.read("gpu", "up", Window(HOUR.start - 15, HOUR.end - 15, 15.0))
    await cache.read("gpu", "up", Window(HOUR.start, HOUR.end, 30.0))
    assert len(prometheus.asked) == 5


async def test_the_least_recently_used_answer_goes_first_when_entries_are_full() -> None:
    prometheus = Prometheus()
    cache = RangeCache(prometheus.query_range, clock=Clock(), max_entries=2)
    await cache.read("gpu", "a", HOUR)
    await cache.read("gpu", "b", HOUR)
    await cache.read("gpu", "a", HOUR)
    await cache.read("gpu", "c", HOUR)
    await cache.read("gpu", "a", HOUR)
    assert [asked[0] for asked in prometheus.asked] == ["a", "b", "c"]
    await cache.read("gpu", "b", HOUR)
    assert [asked[0] for asked in prometheus.asked] == ["a", "b", "c", "b"]


async def test_answers_too_large_for_the_points_bound_are_shared_in_flight_but_not_kept() -> None:
    prometheus = Prometheus(points=10)
    cache = RangeCache(prometheus.query_range, clock=Clock(), max_points=25)
    await cache.read("gpu", "a", HOUR)
    await cache.read("gpu", "b", HOUR)
    await cache.read("gpu", "c", HOUR)
    assert cache.stats.points <= 25
    await cache.read("gpu", "a", HOUR)
    assert len(prometheus.asked) == 4
    big = RangeCache(Prometheus(points=30).query_range, clock=Clock(), max_points=25)
    await big.read("gpu", "a", HOUR)
    assert big.stats.entries == 0


async def test_a_failure_is_never_kept() -> None:
    prometheus = Prometheus()
    prometheus.failure = PrometheusUnavailable(code="prometheus.timed_out", params={"url": "p", "seconds": 1})
    cache = RangeCache(prometheus.query_range, clock=Clock())
    with pytest.raises(PrometheusUnavailable):
        await cache.read("gpu", "up", HOUR)
    prometheus.failure = None
    await cache.read("gpu", "up", HOUR)
    assert len(prometheus.asked) == 2
