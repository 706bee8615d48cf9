"""The runner every background loop uses: one pass, a pause, again; with one error and back-off policy.

A pass that raises is logged (with its traceback the first time in a row when it is not a known
dependency failure), counted, and followed by a pause that doubles from the first back-off up to its
cap; the loop never ends on a failure, only when closed. A pass may ask for its next pause (a
reconciler bringing its next pass forward, a watch reopening at once); a wake-up event, when given,
ends a pause early. Each runner keeps its job's status: last success, last error, failures.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from nufi.background.jobs import Job, job_named
from nufi.errors import NufiError
from nufi.logging import get_logger

# One pass; the seconds until the next one, or None for the interval.
RunOnce = Callable[[], Awaitable[float | None]]

_log = get_logger("nufi.background")
# Failures of what a job talks to, not of the job's own code: logged without a traceback.
_EXPECTED = (NufiError, OSError, TimeoutError)


@dataclass(frozen=True)
class JobStatus:
    running: bool = False
    last_success_at: float | None = None
    last_failure_at: float | None = None
    last_error: str | None = None
    consecutive_failures: int = 0
    failures: int = 0
    passes: int = 0


@dataclass(frozen=True)
class Backoff:
    """After n failures in a row the pause is `first * 2**(n-1)`, at most `cap`; `jitter` draws it
    between half and all of that, so replicas failing together do not retry together."""

    first: float
    cap: float
    jitter: bool = False

    def pause(self, failures: int) -> float:
        pause = min(self.first * 2.0 ** max(failures - 1, 0), self.cap)
        return pause * random.uniform(0.5, 1.0) if self.jitter else pause


class Periodic:
    def __init__(
        self,
        name: str,
        interval_seconds: float,
        run_once: RunOnce,
        *,
        wake: asyncio.Event | None = None,
        backoff: Backoff | None = None,
        on_stop: Callable[[], Awaitable[None]] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`name` must be in the list (UnlistedJob otherwise). Without `backoff` a failed pass is
        retried after the interval; `on_stop` runs when the runner is closed, after its loop ended."""
        self.job: Job = job_named(name)
        self.interval_seconds = interval_seconds
        self._run_once = run_once
        self._wake = wake
        self._backoff = backoff or Backoff(interval_seconds, interval_seconds)
        self._on_stop = on_stop
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.status = JobStatus()

    @property
    def name(self) -> str:
        return self.job.name

    @property
    def running(self) -> bool:
        return self._task is not None

    def start(self) -> None:
        if self._task is None and not self._closed:
            self._task = asyncio.create_task(self._loop(), name=f"nufi-{self.name}")
            self.status = replace(self.status, running=True)

    async def close(self) -> None:
        """Stop the loop (when started) and run `on_stop`, once: closing again does nothing."""
        if self._closed:
            return
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            # The flag ends the loop even if a client library swallows the cancellation mid-request.
            if self._wake is not None:
                self._wake.set()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self.status = replace(self.status, running=False)
        if self._on_stop is not None:
            await self._on_stop()

    def progressed(self) -> None:
        """A long pass (a watch) reached a point that shows the job works: its last success is now.
        The failures in a row stay counted until a pass ends well (they set the next pause)."""
        self.status = replace(self.status, last_success_at=self._clock())

    async def _loop(self) -> None:
        while not self._closed:
            if self._wake is not None:
                self._wake.clear()
            await self._pause(await self.run_now())

    async def run_now(self) -> float:
        """One pass under the policy: its status kept, a failure logged; the pause before the next."""
        try:
            asked = await self._run_once()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return self._failed(exc)
        self.status = replace(
            self.status, last_success_at=self._clock(), consecutive_failures=0, passes=self.status.passes + 1
        )
        return self.interval_seconds if asked is None else asked

    def _failed(self, exc: Exception) -> float:
        status = self.status
        self.status = replace(
            status,
            last_failure_at=self._clock(),
            last_error=f"{type(exc).__name__}: {exc}",
            consecutive_failures=status.consecutive_failures + 1,
            failures=status.failures + 1,
            passes=status.passes + 1,
        )
        pause = self._backoff.pause(self.status.consecutive_failures)
        _log.warning(
            "background pass failed",
            job=self.name,
            error=str(exc),
            error_type=type(exc).__name__,
            failures_in_a_row=self.status.consecutive_failures,
            retry_in_seconds=round(pause, 3),
            exc_info=self.status.consecutive_failures == 1 and not isinstance(exc, _EXPECTED),
        )
        return pause

    async def _pause(self, seconds: float) -> None:
        if self._wake is None:
            await asyncio.sleep(max(seconds, 0.0))
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=max(seconds, 0.0))
