"""Single-flight calls: concurrent callers asking for the same key share one call in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SingleFlight(Generic[K, V]):
    def __init__(self) -> None:
        self._calls: dict[K, asyncio.Future[V]] = {}

    async def run(self, key: K, call: Callable[[], Awaitable[V]]) -> V:
        """The result of `call()`, or of the call already in flight for `key`. A caller that goes
        away does not cancel the call for the others."""
        flight = self._calls.get(key)
        if flight is None:
            flight = asyncio.ensure_future(call())
            self._calls[key] = flight
            flight.add_done_callback(lambda done: self._landed(key, done))
        return await asyncio.shield(flight)

    def _landed(self, key: K, flight: asyncio.Future[V]) -> None:
        if self._calls.get(key) is flight:
            del self._calls[key]
        if not flight.cancelled():
            # Retrieved here, so a failure nobody waited for is not reported as never retrieved.
            flight.exception()
