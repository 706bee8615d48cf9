"""Waiting for something that becomes true a little later (a controller, a scrape, a restart), and
checking that something stays true while it could still go wrong.

Async tests wait with `until` (an async check) or `eventually` (a plain one) and hold with
`stays_true`; synchronous code waits with `poll` and holds with `stays_true_blocking`. No test keeps
a loop of its own.

Prefer a positive signal to `stays_true`: wait for something that can only happen after the thing
that must not happen would have (a later event, a status that says the change was processed). Use
`stays_true` when the only signal is time itself, such as a grace period that must not expire.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def _poll(attempt: Callable[[], Awaitable[T]], within: float, every: float) -> T:
    deadline = time.monotonic() + within
    while True:
        try:
            return await attempt()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        await asyncio.sleep(every)


async def eventually(check: Callable[[], T], within: float = 10.0, every: float = 0.02) -> T:
    """`check()` once it stops raising AssertionError; the last AssertionError after `within` s."""

    async def attempt() -> T:
        return check()

    return await _poll(attempt, within, every)


async def until(
    check: Callable[[], Awaitable[T | None]],
    within: float = 10.0,
    every: float = 0.1,
    what: str = "condition",
) -> T:
    """The first truthy result of `await check()`; an AssertionError after `within` s."""

    async def attempt() -> T:
        result = await check()
        assert result, _not_met(what, within, result)
        return result

    return await _poll(attempt, within, every)


def poll(
    check: Callable[[], T | None], within: float = 10.0, every: float = 0.05, what: str = "condition"
) -> T:
    """`until` for synchronous code: the first truthy result of `check()`, which may also raise an
    AssertionError meanwhile; an AssertionError after `within` s. It blocks the thread."""
    deadline = time.monotonic() + within
    while True:
        try:
            result = check()
            assert result, _not_met(what, within, result)
            return result
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        time.sleep(every)


def _not_met(what: str, within: float, last: object) -> str:
    return f"{what} not met within {within:g} s (last: {last!r})"


async def stays_true(condition: Callable[[], object], for_seconds: float, every: float = 0.02) -> None:
    """`condition()` checked every `every` s for `for_seconds` s, first and last check included; an
    AssertionError as soon as it is falsy (or raises one)."""
    start = time.monotonic()
    deadline = start + for_seconds
    while True:
        now = time.monotonic()
        result = condition()
        assert result, _stopped_holding(now - start, for_seconds, result)
        if now >= deadline:
            return
        await asyncio.sleep(min(every, deadline - now))


def stays_true_blocking(condition: Callable[[], object], for_seconds: float, every: float = 0.05) -> None:
    """`stays_true` for synchronous code; it blocks the thread for the window."""
    start = time.monotonic()
    deadline = start + for_seconds
    while True:
        now = time.monotonic()
        result = condition()
        assert result, _stopped_holding(now - start, for_seconds, result)
        if now >= deadline:
            return
        time.sleep(min(every, deadline - now))


def _stopped_holding(after: float, window: float, result: object) -> str:
    return f"stopped holding after {after:.2f} s of {window:g} s (got {result!r})"


def holds(value: T, why: str = "") -> T:
    """`value` if it is truthy, else an AssertionError (saying `why`): an assert usable in a lambda."""
    assert value, why
    return value


def present(value: T | None) -> T:
    """`value` unless it is None: an assert usable inside a lambda."""
    assert value is not None
    return value
