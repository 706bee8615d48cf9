"""Which refresher serves a type, as of a recent catalog lookup: what lets a read skip the catalog.

Every read that waits looks its type up in the catalog, so an edit made anywhere is followed on the
next read. A read that must not wait (`MonitoringService.current_version`) takes the refresher of the
last lookup instead, for at most `CATALOG_RECHECK_SECONDS`: edits through this replica end that at
once (`changed`), edits through another are followed within it. Past half that time the type is
looked up again in the background, so steady readers never all find it out of date together.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from nufi.monitoring.snapshots.refresher import Refresher

# How long a lookup stands for the catalog in reads that do not wait.
CATALOG_RECHECK_SECONDS = 1.0


class RecentLookups:
    def __init__(self) -> None:
        self._found: dict[str, tuple[float, Refresher]] = {}
        # Counts local edits, so a lookup that began before one is not remembered as current.
        self._changes = 0
        self._rechecks: dict[str, asyncio.Future[Refresher]] = {}

    def began(self) -> tuple[float, int]:
        """Taken before a lookup, and handed to `found` after it."""
        return time.monotonic(), self._changes

    def found(self, device_type_id: str, began: tuple[float, int], refresher: Refresher) -> None:
        at, changes = began
        if changes == self._changes:
            self._found[device_type_id] = (at, refresher)

    def current(self, device_type_id: str, look_up: Callable[[], Awaitable[Refresher]]) -> Refresher | None:
        """The refresher of a lookup younger than the recheck time, or None; `look_up` runs in the
        background once past half of it."""
        found = self._found.get(device_type_id)
        if found is None:
            return None
        age = time.monotonic() - found[0]
        if age >= CATALOG_RECHECK_SECONDS:
            return None
        if age >= CATALOG_RECHECK_SECONDS / 2 and device_type_id not in self._rechecks:
            recheck = asyncio.ensure_future(look_up())
            self._rechecks[device_type_id] = recheck
            recheck.add_done_callback(lambda done: self._rechecked(device_type_id, done))
        return found[1]

    def changed(self, device_type_id: str) -> None:
        self._changes += 1
        self.forget(device_type_id)

    def forget(self, device_type_id: str) -> None:
        self._found.pop(device_type_id, None)

    def close(self) -> None:
        for recheck in list(self._rechecks.values()):
            recheck.cancel()

    def _rechecked(self, device_type_id: str, recheck: asyncio.Future[Refresher]) -> None:
        del self._rechecks[device_type_id]
        if not recheck.cancelled():
            # A failed lookup (the type deleted, the database down) is the next read's to report.
            recheck.exception()
