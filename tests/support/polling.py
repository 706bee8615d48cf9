"""Waiting for something that becomes true a little later (a controller, a scrape, a restart), and
checking that something stays true while it could still go wrong.

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


async def until(check: Callable[[], Awaitable[T]], within: float = 10.0, every: float = 0.1) -> T:
    """The first truthy result of `await check()`; an AssertionError after `within` s."""

    async def attempt() -> T:
        result = await check()
        assert result, f"condition not met within {within} s (last: {result!r})"
        return result

    return await _poll(attempt, within, every)


async def stays_true(condition: Callable[[], object], for_seconds: float, every: float = 0.02) -> None:
    """`condition()` checked every `every` s for `for_seconds` s, first and last check included; an
    AssertionError as soon as it is falsy (or raises one)."""
    start = time.monotonic()
    deadline = start + for_seconds
    while True:
        now = time.monotonic()
        result = condition()
        assert result, f"stopped holding after {now - start:.2f} s of {for_seconds} s (got {result!r})"
        if now >= deadline:
            return
        await asyncio.sleep(min(every, deadline - now))


def holds(value: T) -> T:
    """`value` if it is truthy, else an AssertionError: an assert usable inside a lambda."""
    assert value
    return value


def present(value: T | None) -> T:
    """`value` unless it is None: an assert usable inside a lambda."""
    assert value is not None
    return value
