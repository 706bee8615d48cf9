"""The shared evaluation of one device type: single flight, last good snapshot, idle and wake, streams."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

import pytest

from nufi.monitoring.snapshots.refresher import IDLE_AFTER_INTERVALS, RETAINED_SNAPSHOTS, Refresher
from nufi.monitoring.snapshots.snapshot import Snapshot, Summary
from nufi.prom import PrometheusUnavailable
from support.polling import eventually, stays_true


async def becomes(condition: Callable[[], bool]) -> None:
    def holds() -> None:
        assert condition()

    await eventually(holds, within=5)


T = 1_700_000_000.0
DOWN = PrometheusUnavailable(
    code="prometheus.connect_failed", params={"url": "http://127.0.0.1:1", "reason": "connection refused"}
)


class Clock:
    def __init__(self, now: float = T) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Evaluations:
    """An evaluation that waits for the test to let it finish, and counts how often it ran."""

    def __init__(self) -> None:
        self.instants: list[float] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail: Exception | None = None

    async def __call__(self, at: float) -> Snapshot:
        self.instants.append(at)
        await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        return Snapshot("lpu", at, Summary.of(()), (), (), ())


def refresher(evaluations: Evaluations, clock: Clock, interval: float = 15.0) -> Refresher:
    return Refresher(evaluations, interval_seconds=interval, clock=clock, background=False)


async def test_concurrent_readers_share_one_evaluation() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    evaluations.gate.clear()
    readers = [asyncio.ensure_future(shared.read()) for _ in range(20)]
    await becomes(lambda: evaluations.instants == [T])
    evaluations.gate.set()
    snapshots = await asyncio.gather(*readers)
    assert evaluations.instants == [T]
    assert {s.time for s in snapshots} == {T}


async def test_a_reader_who_goes_away_does_not_cancel_the_evaluation_for_the_others() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    evaluations.gate.clear()
    leaving, staying = asyncio.ensure_future(shared.read()), asyncio.ensure_future(shared.read())
    await becomes(lambda: len(evaluations.instants) == 1)
    leaving.cancel()
    evaluations.gate.set()
    assert (await staying).time == T
    assert len(evaluations.instants) == 1


async def test_reads_are_served_from_the_latest_snapshot_with_its_age() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    await shared.read()
    clock.now = T + 10
    snapshot = await shared.read()
    assert evaluations.instants == [T]
    assert snapshot.time == T and snapshot.age_seconds == 10


async def test_a_read_waking_an_idle_refresher_a_whole_interval_later_gets_a_fresh_evaluation() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    await shared.read()
    clock.now = T + 15
    snapshot = await shared.read()
    assert evaluations.instants == [T, T + 15]
    assert snapshot.time == T + 15 and snapshot.age_seconds == 0


async def test_prometheus_failing_serves_the_last_good_snapshot_with_the_failure_first() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    await shared.read()
    evaluations.fail = DOWN
    clock.now = T + 30
    failed = await shared.read()
    assert failed.time == T and failed.age_seconds == 30
    assert failed.errors[0].source == "prometheus"
    assert "cannot connect" in failed.errors[0].message
    assert "last good snapshot, evaluated at 2023-11-14T22:13:20.000Z" in failed.errors[0].message
    clock.now = T + 45
    assert (await shared.read()).age_seconds == 45
    # Recovery needs nothing but the next evaluation that succeeds.
    evaluations.fail = None
    clock.now = T + 61
    recovered = await shared.read()
    assert recovered.time == T + 61 and recovered.errors == ()


async def test_without_any_good_snapshot_the_failure_itself_is_raised() -> None:
    evaluations, clock = Evaluations(), Clock()
    evaluations.fail = DOWN
    shared = refresher(evaluations, clock)
    with pytest.raises(PrometheusUnavailable, match="cannot connect"):
        await shared.read()


async def test_recent_snapshots_are_kept_for_paging_and_then_dropped() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    instants = [T + 30 * i for i in range(RETAINED_SNAPSHOTS + 1)]
    for instant in instants:
        clock.now = instant
        await shared.read()
    assert shared.retained(instants[0]) is None
    for instant in instants[1:]:
        kept = shared.retained(instant)
        assert kept is not None and kept.time == instant
        assert kept.age_seconds == clock.now - instant


async def test_next_after_waits_for_the_next_evaluation_and_gives_up_after_the_timeout() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    landed = await shared.next_after(0, timeout_seconds=5)
    assert landed is not None
    seen, first = landed
    assert seen == 1 and isinstance(first, Snapshot)
    assert await shared.next_after(seen, timeout_seconds=0.05) is None
    waiting = asyncio.ensure_future(shared.next_after(seen, timeout_seconds=5))
    await becomes(lambda: shared.streams == 1)
    clock.now = T + 30
    await shared.read()
    landed = await waiting
    assert landed is not None and landed[0] == 2
    assert isinstance(landed[1], Snapshot) and landed[1].time == T + 30
    assert shared.streams == 0


async def test_closing_wakes_the_streams_waiting_for_it_so_they_follow_the_type_at_once() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    landed = await shared.next_after(0, timeout_seconds=5)
    assert landed is not None
    # An hour's heartbeat: only the close can end this wait within the bound below.
    waiting = asyncio.ensure_future(shared.next_after(landed[0], timeout_seconds=3600))
    await becomes(lambda: shared.streams == 1)
    await shared.close()
    assert await asyncio.wait_for(waiting, 30) is None
    assert shared.streams == 0


async def test_next_after_hands_over_the_failure_when_there_is_no_good_snapshot() -> None:
    evaluations, clock = Evaluations(), Clock()
    evaluations.fail = DOWN
    landed = await refresher(evaluations, clock).next_after(0, timeout_seconds=5)
    assert landed is not None and landed[1] is DOWN


async def test_the_loop_evaluates_at_aligned_instants_while_read_and_then_goes_idle() -> None:
    evaluations = Evaluations()
    interval = 0.05
    shared = Refresher(evaluations, interval_seconds=interval)
    try:
        await shared.read()
        for _ in range(3):
            await shared.read()
            await asyncio.sleep(interval)
        # Unread, the loop stops within a few intervals; no evaluation happens after that.
        await becomes(lambda: not shared.refreshing)
        counted = len(evaluations.instants)
        await stays_true(
            lambda: len(evaluations.instants) == counted, for_seconds=IDLE_AFTER_INTERVALS * interval * 2
        )
        # Every evaluation of the loop (all but the reader's first) is on a multiple of the interval.
        ticks = evaluations.instants[1:]
        assert len(ticks) >= 3
        for instant in ticks:
            assert math.isclose(round(instant / interval) * interval, instant, abs_tol=1e-6)
        # The next read wakes it.
        await shared.read()
        assert shared.refreshing
    finally:
        await shared.close()
    assert not shared.refreshing


async def test_the_jobs_report_counts_failures_in_a_row_until_an_evaluation_succeeds() -> None:
    evaluations, clock = Evaluations(), Clock()
    shared = refresher(evaluations, clock)
    await shared.read()
    evaluations.fail = DOWN
    for failed_at in (T + 30, T + 61):
        clock.now = failed_at
        await shared.read()
    report = shared.stats.job_status(running=True)
    assert (report.running, report.last_success_at, report.last_failure_at) == (True, T, T + 61)
    assert (report.consecutive_failures, report.failures, report.passes) == (2, 2, 3)
    assert report.last_error is not None and "cannot connect" in report.last_error
    evaluations.fail = None
    clock.now = T + 92
    await shared.read()
    report = shared.stats.job_status(running=False)
    assert (report.running, report.last_success_at, report.consecutive_failures) == (False, T + 92, 0)
    assert (report.last_failure_at, report.failures, report.passes) == (T + 61, 2, 4)
