"""Waiting for something that becomes true a little later (a controller, a scrape, a restart)."""

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


def holds(value: T) -> T:
    """`value` if it is truthy, else an AssertionError: an assert usable inside a lambda."""
    assert value
    return value


def present(value: T | None) -> T:
    """`value` unless it is None: an assert usable inside a lambda."""
    assert value is not None
    return value
