"""What the store tells its watchers: one event per write, fanned out to every subscription.

The in-memory counterpart of etcd's watch under the API server's watch cache: each event carries the
object before and after the write, so a watcher can tell when a selector starts or stops matching.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]


@dataclass(frozen=True)
class WatchEvent:
    type: str  # ADDED | MODIFIED | DELETED
    rt_key: tuple[str, str]
    namespace: str
    object: Obj
    old: Obj | None
    rv: int


@dataclass(eq=False)
class Subscription:
    """A live feed of store events; the caller filters, the store only fans out."""

    queue: asyncio.Queue[WatchEvent] = field(default_factory=asyncio.Queue)
    closed: bool = False

    async def __aiter__(self) -> AsyncIterator[WatchEvent]:
        while not self.closed:
            yield await self.queue.get()
