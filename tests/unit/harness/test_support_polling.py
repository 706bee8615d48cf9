"""The test suite's own waiting helpers: `stays_true` checks across the whole window and fails at once."""

from __future__ import annotations

import time

import pytest

from support.polling import stays_true


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
