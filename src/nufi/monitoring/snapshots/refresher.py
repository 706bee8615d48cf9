"""One device type's shared evaluation: every reader of the type in this replica reads one snapshot.

A refresher evaluates its type once per refresh interval, at instants aligned to the interval (so
successive snapshots are one interval apart and replicas evaluate the same instants), for as long as
the type is read: after `IDLE_AFTER_INTERVALS` intervals without a reader (and no open stream) it stops,
and the next read wakes it. Concurrent readers share the one evaluation in flight. A read never waits
while there is something to serve: it gets the latest snapshot, with its age. Only a read that finds
nothing, or one that wakes an idle refresher whose snapshot is older than an interval, waits for a
fresh evaluation.

When an evaluation fails because Prometheus answered none of its queries, the last good snapshot is
served, with the failure first in its `errors` and an `age_seconds` that keeps growing; with none, the
failure itself (503). The next evaluation that succeeds replaces it, without a restart.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time as wall
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from nufi.background.periodic import JobStatus
from nufi.logging import get_logger
from nufi.messages import Message
from nufi.monitoring.snapshots.snapshot import MonitoringError, Snapshot, said_of
from nufi.monitoring.times import rfc3339
from nufi.prom import PrometheusUnavailable

IDLE_AFTER_INTERVALS = 3
# Snapshots kept for readers paging through one of them (`continue`).
RETAINED_SNAPSHOTS = 4

Evaluate = Callable[[float], Awaitable[Snapshot]]
_log = get_logger("nufi.monitoring")


@dataclass
class RefresherStats:
    evaluations: int = 0
    # Evaluations Prometheus answered none of.
    failures: int = 0
    evaluation_seconds: float = 0.0
    reads: int = 0
    # The `monitoring-refresh` job's report, kept as it goes: its failures are any evaluation that
    # failed, for whatever reason (`failures` above counts those Prometheus answered none of).
    report: JobStatus = dataclasses.field(default_factory=JobStatus)

    def job_status(self, running: bool) -> JobStatus:
        return dataclasses.replace(
            self.report, running=running, failures=self.failures, passes=self.evaluations
        )

    def failed(self, at: float, error: str) -> None:
        in_a_row = self.report.consecutive_failures + 1
        self.report = dataclasses.replace(
            self.report, last_failure_at=at, last_error=error, consecutive_failures=in_a_row
        )

    def succeeded(self, at: float) -> None:
        self.report = dataclasses.replace(self.report, last_success_at=at, consecutive_failures=0)


class Refresher:
    def __init__(
        self,
        evaluate: Evaluate,
        *,
        interval_seconds: float,
        clock: Callable[[], float] = wall.time,
        background: bool = True,
    ) -> None:
        self._evaluate = evaluate
        self._interval = interval_seconds
        self._clock = clock
        self._background = background
        self._latest: Snapshot | None = None
        self._retained: deque[Snapshot] = deque(maxlen=RETAINED_SNAPSHOTS)
        self._failure: PrometheusUnavailable | None = None
        self._failed_at = -math.inf
        self._attempted_at = -math.inf
        self._attempts = 0
        self._changed = asyncio.Event()
        self._inflight: asyncio.Task[None] | None = None
        self._waking: asyncio.Task[None] | None = None
        self._loop: asyncio.Task[None] | None = None
        self._last_read = -math.inf
        self._streams = 0
        self._closed = False
        self.stats = RefresherStats()

    @property
    def latest(self) -> Snapshot | None:
        return self._latest

    @property
    def streams(self) -> int:
        """Callers waiting in `next_after` right now."""
        return self._streams

    @property
    def refreshing(self) -> bool:
        """Whether the background loop is evaluating the type (it has readers)."""
        return self._loop is not None

    async def read(self) -> Snapshot:
        """The latest snapshot, evaluating first only when there is nothing to serve (see the module
        doc); raises PrometheusUnavailable when no evaluation ever succeeded."""
        refreshing = self._loop is not None
        now = self._touch()
        if not refreshing and self._inflight is None and now - self._attempted_at >= self._interval:
            self._waking = self._flight(now)
        if not self._has_result():
            await asyncio.shield(self._flight(now))
        elif self._waking is not None:
            # Readers arriving while a wake-up evaluation runs wait for it too, not for the old snapshot.
            await asyncio.shield(self._waking)
        return self._current()

    async def outcome(self) -> Snapshot | PrometheusUnavailable:
        """`read`, with the failure returned rather than raised (for reading many types at once)."""
        try:
            return await self.read()
        except PrometheusUnavailable as exc:
            return exc

    @property
    def version(self) -> int:
        """Changes with every evaluation: two reads with the same version are served the same snapshot
        and errors (only the age differs)."""
        return self._attempts

    def peek(self) -> int | None:
        """Counts as a read and gives the version a read would serve right now, when it would serve
        it without waiting; None when a read would wait or wake the refresher (then `read`)."""
        if self._loop is None or self._waking is not None or not self._has_result():
            return None
        self._touch()
        return self._attempts

    def served(self) -> Snapshot | None:
        """What `read` would serve right now without waiting (after `peek` said so), else None."""
        if self._latest is None:
            return None
        return self._served(self._latest)

    def retained(self, snapshot_time: float) -> Snapshot | None:
        """A recent snapshot by its `time`, as a read would serve it; None once it has been dropped."""
        for snapshot in self._retained:
            if snapshot.time == snapshot_time:
                return self._served(snapshot)
        return None

    async def next_after(
        self, seen: int, timeout_seconds: float
    ) -> tuple[int, Snapshot | PrometheusUnavailable] | None:
        """What the first evaluation after attempt number `seen` (0: whatever there is, once there is
        something) has to serve, with its attempt number: a snapshot, or the failure when no good
        snapshot exists; None when no evaluation ended within `timeout_seconds` or the refresher was
        closed meanwhile. A waiting caller keeps the refresher awake."""
        self._streams += 1
        try:
            self._touch()
            deadline = self._clock() + timeout_seconds
            while self._attempts <= seen or not self._has_result():
                if self._closed:
                    # Replaced (the type was edited) or gone: the caller looks the type up again.
                    return None
                if self._attempts == 0 and self._inflight is None:
                    self._flight(self._clock())
                changed = self._changed
                remaining = deadline - self._clock()
                if remaining <= 0:
                    return None
                try:
                    await asyncio.wait_for(changed.wait(), remaining)
                except TimeoutError:
                    return None
            try:
                return self._attempts, self._current()
            except PrometheusUnavailable as exc:
                return self._attempts, exc
        finally:
            self._streams -= 1
            self._touch()

    async def close(self) -> None:
        self._closed = True
        # Streams waiting for this refresher's next evaluation would otherwise wait out their heartbeat.
        self._changed.set()
        tasks = [task for task in (self._loop, self._inflight) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- internals -----------------------------------------------------------------------------------

    def _touch(self) -> float:
        now = self._clock()
        self._last_read = now
        self.stats.reads += 1
        if self._background and not self._closed and self._loop is None:
            self._loop = asyncio.ensure_future(self._run())
        return now

    def _has_result(self) -> bool:
        return self._latest is not None or self._failure is not None

    def _flight(self, at: float) -> asyncio.Task[None]:
        if self._inflight is None:
            self._inflight = asyncio.ensure_future(self._attempt(at))
        return self._inflight

    async def _attempt(self, at: float) -> None:
        started = wall.perf_counter()
        self._attempted_at = at
        try:
            snapshot = await self._evaluate(at)
        except PrometheusUnavailable as exc:
            self._failure, self._failed_at = exc, at
            self.stats.failures += 1
            self.stats.failed(self._clock(), exc.detail)
        except Exception as exc:
            self.stats.failed(self._clock(), f"{type(exc).__name__}: {exc}")
            raise
        else:
            self._latest = snapshot
            self._retained.append(snapshot)
            self._failure = None
            self.stats.succeeded(self._clock())
        finally:
            self.stats.evaluations += 1
            self.stats.evaluation_seconds += wall.perf_counter() - started
            self._attempts += 1
            self._inflight = self._waking = None
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()

    def _current(self) -> Snapshot:
        if self._latest is None:
            if self._failure is None:
                raise PrometheusUnavailable(code="monitoring.not_evaluated_yet")
            raise self._failure
        return self._served(self._latest)

    def _served(self, snapshot: Snapshot) -> Snapshot:
        errors = snapshot.errors
        if self._failure is not None and self._failed_at > snapshot.time:
            cause = said_of(self._failure)
            last_good = None
            if cause is not None:
                last_good = Message("monitoring.last_good", {"failure": cause, "at": rfc3339(snapshot.time)})
            failed = MonitoringError(
                "prometheus",
                f"{self._failure.detail}; showing the last good snapshot, evaluated at "
                f"{rfc3339(snapshot.time)}",
                said=last_good,
            )
            errors = (failed, *errors)
        age = max(self._clock() - snapshot.data_time, 0.0)
        return dataclasses.replace(snapshot, errors=errors, age_seconds=age)

    async def _run(self) -> None:
        try:
            while True:
                now = self._clock()
                tick = (math.floor(now / self._interval) + 1) * self._interval
                await asyncio.sleep(tick - now)
                # Idle is decided before evaluating, so an idle refresher's last snapshot is always
                # at least an interval old and the read that wakes it gets a fresh one.
                if (
                    self._clock() - self._last_read > IDLE_AFTER_INTERVALS * self._interval
                    and not self._streams
                ):
                    return
                try:
                    await asyncio.shield(self._flight(tick))
                except Exception:
                    # A fetcher's fault: readers of that evaluation got it; the next tick tries again.
                    _log.exception("monitoring evaluation failed")
        finally:
            self._loop = None
