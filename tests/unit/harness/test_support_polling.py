"""The test suite's own waiting helpers: `stays_true` (and its blocking twin) checks across the whole
window and fails at once; `poll` returns the first truthy answer and fails naming what it waited for."""

from __future__ import annotations

import time

import pytest

from support.polling import eventually, holds, poll, stays_true, stays_true_blocking, until


async def test_a_condition_that_holds_is_checked_from_start_to_end_of_the_window() -> None:
    checked_at: list[float] = []
    start = time.monotonic()

    def condition() -> bool:
        checked_at.append(time.monotonic() - start)
        return True

    await stays_true(condition, for_seconds=0.2, every=0.05)
    # At the start, in between (about every 0.05 s), and once the window is over.
    assert len(checked_at) >= 3
    assert checked_at[0] < 0.05 and checked_at[-1] >= 0.2


async def test_the_first_false_fails_without_waiting_for_the_end() -> None:
    calls = 0

    def condition() -> bool:
        nonlocal calls
        calls += 1
        return calls < 3

    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"stopped holding after 0\.\d\d s of 5 s \(got False\)"):
        await stays_true(condition, for_seconds=5, every=0.01)
    assert calls == 3 and time.monotonic() - start < 1


async def test_an_assertion_inside_the_condition_is_what_fails() -> None:
    def condition() -> bool:
        raise AssertionError("the resource was removed")

    with pytest.raises(AssertionError, match="the resource was removed"):
        await stays_true(condition, for_seconds=1)


def test_the_blocking_twin_checks_the_whole_window_and_fails_at_once() -> None:
    checked_at: list[float] = []
    start = time.monotonic()

    def condition() -> bool:
        checked_at.append(time.monotonic() - start)
        return len(checked_at) < 4

    with pytest.raises(AssertionError, match=r"stopped holding after 0\.\d\d s of 5 s \(got False\)"):
        stays_true_blocking(condition, for_seconds=5, every=0.01)
    assert len(checked_at) == 4 and time.monotonic() - start < 1
    checked_at.clear()

    def holding() -> bool:
        checked_at.append(time.monotonic() - start)
        return True

    stays_true_blocking(holding, for_seconds=0.1, every=0.02)
    assert len(checked_at) >= 3 and checked_at[-1] - checked_at[0] >= 0.1


def test_poll_returns_the_first_truthy_answer_and_rides_out_assertions() -> None:
    answers = iter([None, AssertionError("not yet"), 0, "there", "later"])

    def check() -> object:
        answer = next(answers)
        if isinstance(answer, AssertionError):
            raise answer
        return answer

    assert poll(check, within=5, every=0.001) == "there"


def test_poll_fails_after_the_window_naming_what_it_waited_for_and_the_last_answer() -> None:
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"the pod gone not met within 0\.2 s \(last: \[\]\)"):
        poll(lambda: [], within=0.2, what="the pod gone")
    assert 0.2 <= time.monotonic() - start < 2


async def test_until_names_what_it_waited_for() -> None:
    async def never() -> int:
        return 0

    with pytest.raises(AssertionError, match=r"the lab Ready not met within 0\.1 s \(last: 0\)"):
        await until(never, within=0.1, every=0.01, what="the lab Ready")


async def test_eventually_waits_for_holds_and_fails_saying_why() -> None:
    hits = iter(range(100))
    assert await eventually(lambda: holds(next(hits) >= 3), within=5, every=0.001) is True
    with pytest.raises(AssertionError, match="only 0 hits"):
        await eventually(lambda: holds(False, "only 0 hits"), within=0.05, every=0.01)
