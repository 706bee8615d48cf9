"""The board: every background job of one process, started and closed together, each reported.

The composition root adds the runners that apply to its settings and starts them in one call. A job
that opens database sessions is not started on a one-connection (in-memory) database, which cannot
serve a loop beside requests. Every listed job has a /readyz entry (reported, never making the replica
unready) and its status on /metrics, including the jobs this process does not run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from nufi.background.jobs import JOBS, Job, Kind
from nufi.background.periodic import JobStatus, Periodic
from nufi.health import DependencyStatus, elapsed_ms
from nufi.logging import get_logger

_log = get_logger("nufi.background")
IN_MEMORY = "not started: the database is in memory (one connection)"
NOT_HERE = "not running: not configured in this process"
ON_DEMAND = "runs per device type while it is read"

# For an on-demand job: the statuses of its runners now (one per device type being read).
StatusSource = Callable[[], list[JobStatus]]


@dataclass(frozen=True)
class JobReport:
    job: Job
    status: JobStatus
    # Why the job is not running here; None when it runs (or runs on demand).
    not_running: str | None


class Background:
    def __init__(self, *, single_connection: bool = False) -> None:
        self._single_connection = single_connection
        self._runners: list[Periodic] = []
        self._sources: dict[str, StatusSource] = {}
        self._started = False

    def allows(self, job: Job) -> bool:
        """Whether this process can run the job (a database job needs more than one connection)."""
        return not (job.uses_database and self._single_connection)

    def add(self, *runners: Periodic) -> None:
        for runner in runners:
            if any(r.name == runner.name for r in self._runners):
                raise ValueError(f"the background job {runner.name!r} was added twice")
            self._runners.append(runner)

    def add_source(self, job: Job, source: StatusSource) -> None:
        """Report an on-demand job, whose runners come and go, through what `source` says of them."""
        self._sources[job.name] = source

    def start(self) -> None:
        for runner in self._runners:
            if self.allows(runner.job):
                runner.start()
            else:
                _log.warning("background job not started", job=runner.name, reason=IN_MEMORY)
        self._started = True

    async def close(self) -> None:
        # In reverse: a job started after another may read it (the thermal controller, its Lease).
        for runner in reversed(self._runners):
            await runner.close()

    def reports(self) -> Iterator[JobReport]:
        """Every listed job, in the list's order, with its status here."""
        runners = {r.name: r for r in self._runners}
        for job in JOBS:
            if job.name in self._sources:
                yield JobReport(job, _combined(self._sources[job.name]()), None)
            elif job.name in runners and runners[job.name].running:
                yield JobReport(job, runners[job.name].status, None)
            elif job.name in runners:
                why = IN_MEMORY if not self.allows(job) else "not started"
                yield JobReport(job, runners[job.name].status, why if self._started else "not started yet")
            else:
                yield JobReport(job, JobStatus(), NOT_HERE)

    def checks(self) -> list[JobCheck]:
        """One /readyz entry per listed job."""
        return [JobCheck(self, job) for job in JOBS]


class JobCheck:
    """A job's /readyz entry: reported, never making NuFi unready (nothing is served by a loop)."""

    def __init__(self, board: Background, job: Job) -> None:
        self._board = board
        self._job = job

    @property
    def name(self) -> str:
        return f"background/{self._job.name}"

    @property
    def configured(self) -> bool:
        return self._report().not_running is None

    async def check(self) -> DependencyStatus:
        started = time.perf_counter()
        report = self._report()
        status = report.status
        return DependencyStatus(
            name=self.name,
            ok=report.not_running is None and status.consecutive_failures == 0,
            configured=report.not_running is None,
            detail=report.not_running or _detail(report),
            latency_ms=elapsed_ms(started),
            required=False,
        )

    def _report(self) -> JobReport:
        return next(r for r in self._board.reports() if r.job.name == self._job.name)


def _detail(report: JobReport) -> str:
    status = report.status
    success = (
        "no pass has succeeded yet"
        if status.last_success_at is None
        else (f"last success at {_stamp(status.last_success_at)}")
    )
    parts = [f"{report.job.kind} on {report.job.where}", success]
    if report.job.kind is Kind.ON_DEMAND:
        parts.append(ON_DEMAND)
    if status.consecutive_failures:
        parts.append(f"{status.consecutive_failures} failures in a row, the last: {status.last_error}")
    parts.append(f"{status.failures} failures since start")
    return "; ".join(parts)


def _stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _combined(statuses: list[JobStatus]) -> JobStatus:
    """An on-demand job's runners as one: the latest success, the worst streak, every failure."""
    successes = [s.last_success_at for s in statuses if s.last_success_at is not None]
    failing = [s for s in statuses if s.last_failure_at is not None]
    last = max(failing, key=lambda s: s.last_failure_at or 0.0, default=None)
    return JobStatus(
        running=any(s.running for s in statuses),
        last_success_at=max(successes, default=None),
        last_failure_at=None if last is None else last.last_failure_at,
        last_error=None if last is None else last.last_error,
        consecutive_failures=max((s.consecutive_failures for s in statuses), default=0),
        failures=sum(s.failures for s in statuses),
        passes=sum(s.passes for s in statuses),
    )
