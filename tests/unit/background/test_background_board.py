"""The board: every listed job reported whether it runs here or not, database jobs kept off a
one-connection database, and everything it started stopped on close."""

from __future__ import annotations

import pytest

from nufi.background.board import IN_MEMORY, NOT_HERE, Background
from nufi.background.jobs import ALERT_RULES, JOBS, MONITORING_REFRESH, THERMAL_LEASE, job_named
from nufi.background.periodic import JobStatus, Periodic
from support.polling import eventually


async def _quiet() -> None:
    return None


async def test_every_listed_job_has_a_reported_readiness_entry() -> None:
    board = Background()
    lease = Periodic(THERMAL_LEASE, 0.01, _quiet)
    board.add(lease)
    board.start()
    try:
        await eventually(lambda: _succeeded(lease))
        statuses = {s.name: s for s in [await check.check() for check in board.checks()]}
    finally:
        await board.close()
    assert list(statuses) == [f"background/{job.name}" for job in JOBS]
    assert all(not s.required for s in statuses.values())
    running = statuses[f"background/{THERMAL_LEASE}"]
    assert (running.ok, running.configured) == (True, True)
    assert "last success at" in running.detail and "0 failures since start" in running.detail
    absent = statuses[f"background/{ALERT_RULES}"]
    assert (absent.ok, absent.configured, absent.detail) == (False, False, NOT_HERE)
    assert not lease.running


async def test_a_database_job_is_not_started_on_a_one_connection_database() -> None:
    board = Background(single_connection=True)
    rules, lease = Periodic(ALERT_RULES, 0.01, _quiet), Periodic(THERMAL_LEASE, 0.01, _quiet)
    board.add(rules, lease)
    assert not board.allows(rules.job) and board.allows(lease.job)
    board.start()
    try:
        assert lease.running and not rules.running
        reports = {r.job.name: r for r in board.reports()}
        assert reports[ALERT_RULES].not_running == IN_MEMORY
    finally:
        await board.close()


def test_an_on_demand_job_is_its_runners_combined() -> None:
    board = Background()
    board.add_source(
        job_named(MONITORING_REFRESH),
        lambda: [
            JobStatus(running=True, last_success_at=10.0, failures=1),
            JobStatus(last_success_at=20.0, last_failure_at=30.0, last_error="boom", consecutive_failures=2),
        ],
    )
    report = next(r for r in board.reports() if r.job.name == MONITORING_REFRESH)
    status = report.status
    assert report.not_running is None
    assert (status.running, status.last_success_at, status.consecutive_failures) == (True, 20.0, 2)
    assert (status.failures, status.last_error) == (1, "boom")


def test_a_job_cannot_be_added_twice() -> None:
    board = Background()
    board.add(Periodic(THERMAL_LEASE, 1.0, _quiet))
    with pytest.raises(ValueError, match=THERMAL_LEASE):
        board.add(Periodic(THERMAL_LEASE, 1.0, _quiet))


def _succeeded(job: Periodic) -> None:
    assert job.status.last_success_at is not None
