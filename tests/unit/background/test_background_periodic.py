"""The runner every background loop uses: the list it refuses to run outside of, its one error and
back-off policy, its status, wake-ups and a clean close."""

from __future__ import annotations

import asyncio

import pytest

from nufi.background.jobs import ALERT_RULES, INTENT_RECONCILER, UnlistedJob
from nufi.background.periodic import Backoff, Periodic
from nufi.errors import DependencyUnavailable
from support.polling import eventually, stays_true


class Passes:
    """A pass that fails while `failing` is set, counting its calls."""

    def __init__(self, failing: bool = False) -> None:
        self.failing = failing
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.failing:
            raise DependencyUnavailable(code="kube.unreachable", dependency="kubernetes")


def test_a_loop_the_list_does_not_name_is_refused() -> None:
    with pytest.raises(UnlistedJob, match="hand-rolled"):
        Periodic("hand-rolled", 1.0, Passes())


async def test_failures_back_off_doubling_to_the_cap_and_a_success_resets_them() -> None:
    passes = Passes(failing=True)
    now = [100.0]
    job = Periodic(ALERT_RULES, 1.0, passes, backoff=Backoff(0.5, 3.0), clock=lambda: now[0])
    assert [await job.run_now() for _ in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    status = job.status
    assert (status.consecutive_failures, status.failures, status.last_success_at) == (5, 5, None)
    assert status.last_error is not None and "DependencyUnavailable" in status.last_error
    passes.failing = False
    now[0] = 200.0
    assert await job.run_now() == 1.0
    assert (job.status.consecutive_failures, job.status.failures, job.status.last_success_at) == (0, 5, 200.0)
    # The next streak starts from the first pause again.
    passes.failing = True
    assert await job.run_now() == 0.5


async def test_without_a_backoff_a_failed_pass_is_retried_after_the_interval() -> None:
    job = Periodic(ALERT_RULES, 4.0, Passes(failing=True))
    assert [await job.run_now() for _ in range(3)] == [4.0, 4.0, 4.0]


async def test_a_pass_may_ask_for_its_next_pause() -> None:
    async def soon() -> float:
        return 0.25

    assert await Periodic(INTENT_RECONCILER, 10.0, soon).run_now() == 0.25


async def test_the_loop_outlives_failing_passes_and_a_bug_and_closes_cleanly() -> None:
    calls = 0

    async def flaky() -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ZeroDivisionError("a bug in one pass")
        if calls == 2:
            raise DependencyUnavailable(code="kube.unreachable", dependency="kubernetes")

    stopped: list[bool] = []

    async def on_stop() -> None:
        stopped.append(True)

    job = Periodic(ALERT_RULES, 0.01, flaky, on_stop=on_stop)
    job.start()
    await eventually(lambda: _at_least(calls, 4))
    assert job.running and job.status.failures == 2 and job.status.consecutive_failures == 0
    await job.close()
    assert not job.running and not job.status.running and stopped == [True]
    settled = calls
    await stays_true(lambda: calls == settled, for_seconds=0.1)
    await job.close()
    assert stopped == [True]


async def test_a_wake_up_ends_the_pause_at_once() -> None:
    passes = Passes()
    wake = asyncio.Event()
    job = Periodic(ALERT_RULES, 3600.0, passes, wake=wake)
    job.start()
    try:
        await eventually(lambda: _at_least(passes.calls, 1))
        wake.set()
        await eventually(lambda: _at_least(passes.calls, 2), within=2.0)
    finally:
        await job.close()


async def test_a_closed_runner_never_starts_again() -> None:
    passes = Passes()
    job = Periodic(ALERT_RULES, 0.01, passes)
    await job.close()
    job.start()
    assert not job.running and passes.calls == 0


def _at_least(value: int, least: int) -> None:
    assert value >= least, value
