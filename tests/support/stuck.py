"""Naming the await a test is stuck on.

pytest-timeout prints every thread's stack when a test runs out of time, but an asyncio test sits in
the event loop's `select`, so the stack it prints says nothing of which call never returned. Shortly
before the timeout, `report_stuck_tasks` prints the stack of every task still pending instead.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

# How long before pytest-timeout's own deadline the tasks are printed.
AHEAD_SECONDS = 60.0


def timeout_of(item: pytest.Item) -> float | None:
    """The timeout pytest-timeout applies to `item`: its marker, else --timeout, else the ini value."""
    marker = item.get_closest_marker("timeout")
    if marker is not None and marker.args:
        return float(marker.args[0])
    for value in (item.config.getoption("timeout", None), item.config.getini("timeout")):
        if value not in (None, ""):
            return float(value)
    return None


def await_chain(awaitable: object) -> list[str]:
    """Where a suspended coroutine waits, down its chain of awaits to the innermost one (a task's own
    stack stops at its outermost coroutine)."""
    lines: list[str] = []
    while awaitable is not None:
        frame = getattr(awaitable, "cr_frame", None) or getattr(awaitable, "ag_frame", None)
        frame = frame or getattr(awaitable, "gi_frame", None)
        if frame is None:
            lines.append(f"  waiting for {awaitable!r}")
            break
        lines.append(f'  File "{frame.f_code.co_filename}", line {frame.f_lineno}, in {frame.f_code.co_name}')
        awaitable = (
            getattr(awaitable, "cr_await", None)
            or getattr(awaitable, "ag_await", None)
            or getattr(awaitable, "gi_yieldfrom", None)
        )
    return lines


def print_pending_tasks(title: str, context: Callable[[], str] | None = None) -> None:
    print(f"\n===== still pending in {title} =====", file=sys.stderr)
    for task in asyncio.all_tasks():
        print(f"{task.get_name()}:", *await_chain(task.get_coro()), sep="\n", file=sys.stderr)
    if context is not None:
        print(f"===== meanwhile =====\n{context()}", file=sys.stderr)
    sys.stderr.flush()


@asynccontextmanager
async def report_stuck_tasks(
    item: pytest.Item, context: Callable[[], str] | None = None
) -> AsyncIterator[None]:
    """Within it, the pending tasks (and what `context` says) are printed `AHEAD_SECONDS` before
    `item` times out."""
    timeout = timeout_of(item)
    if not timeout:
        yield
        return
    handle = asyncio.get_running_loop().call_later(
        max(timeout - AHEAD_SECONDS, 1.0), print_pending_tasks, item.nodeid, context
    )
    try:
        yield
    finally:
        handle.cancel()
