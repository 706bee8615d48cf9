"""Timing one call, and waiting for the watch-fed cluster cache to serve."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from nufi.cluster.cache import ClusterCache


async def timed(action: Callable[[], Awaitable[object]]) -> float:
    """Seconds `action` took."""
    started = time.perf_counter()
    await action()
    return time.perf_counter() - started


async def until_serving(cache: ClusterCache, *, within: float = 60.0, poll_seconds: float = 0.1) -> None:
    """Wait for the watch-fed cluster cache to serve, as the server's reads are served."""
    deadline = time.monotonic() + within
    while not cache.serving:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the cluster cache did not sync: {cache.why_not_serving()}")
        await asyncio.sleep(poll_seconds)
