"""The shape every simulated controller shares: watch the store, queue keys, reconcile one at a time.

Reconciles run in the store's event loop. Store calls never await, so a reconcile that does not await
sees and changes the store atomically; keys are deduplicated while they wait, and a failed reconcile
comes back after a short delay, like a rate-limited work queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

from nufi_sandbox.devcluster.storage.store import Store, Subscription, WatchEvent

log = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)
ObjectKey = tuple[str, str]
"""(namespace, name): what most controllers queue."""


class WorkQueue(Generic[K]):
    def __init__(self) -> None:
        self._pending: dict[K, None] = {}
        self._wake = asyncio.Event()

    def add(self, key: K) -> None:
        self._pending[key] = None
        self._wake.set()

    def add_after(self, key: K, delay: float) -> None:
        asyncio.get_running_loop().call_later(delay, self.add, key)

    async def get(self) -> K:
        while not self._pending:
            self._wake.clear()
            await self._wake.wait()
        key = next(iter(self._pending))
        del self._pending[key]
        return key


class Controller(Generic[K]):
    """Subclasses say which keys an event touches, list every key for resyncs, and reconcile a key."""

    name = "controller"
    resync_seconds: float | None = None
    retry_seconds = 0.5

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queue: WorkQueue[K] = WorkQueue()
        self._subscription: Subscription | None = None
        self._tasks: list[asyncio.Task[None]] = []

    # -- to override ---------------------------------------------------------------------------------

    def keys_for(self, event: WatchEvent) -> Iterable[K]:
        return ()

    def all_keys(self) -> Iterable[K]:
        return ()

    async def reconcile(self, key: K) -> None:
        raise NotImplementedError

    # -- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> None:
        # Subscribe before listing so nothing written in between is missed.
        self._subscription = self.store.subscribe()
        for key in self.all_keys():
            self.queue.add(key)
        self._tasks = [
            asyncio.create_task(self._feed(self._subscription), name=f"{self.name} events"),
            asyncio.create_task(self._work(), name=f"{self.name} worker"),
        ]
        if self.resync_seconds:
            self._tasks.append(
                asyncio.create_task(self._resync(self.resync_seconds), name=f"{self.name} resync")
            )

    async def stop(self) -> None:
        if self._subscription is not None:
            self.store.unsubscribe(self._subscription)
            self._subscription = None
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    async def _feed(self, subscription: Subscription) -> None:
        async for event in subscription:
            try:
                for key in self.keys_for(event):
                    self.queue.add(key)
            except Exception:
                log.exception("%s could not route a %s event", self.name, event.type)

    async def _work(self) -> None:
        while True:
            key = await self.queue.get()
            try:
                await self.reconcile(key)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s failed to reconcile %s; retrying", self.name, key)
                self.queue.add_after(key, self.retry_seconds)

    async def _resync(self, period: float) -> None:
        while True:
            await asyncio.sleep(period)
            for key in self.all_keys():
                self.queue.add(key)
