"""The reconciler: settles intents whose request ended without settling them (a crash, `kill -9`, a
database or API server unreachable at the end).

It runs on every replica, at start and then every interval, and takes only intents older than any
request may take (`NUFI_INTENT_SETTLE_AFTER_SECONDS`), so it never races a change still under way.
No Lease is needed: each settler's cluster steps are idempotent (deleting something absent, creating
a RoleBinding that exists), and completing an intent removes its row and writes its audit record in
one transaction that only one replica can win (`db/intents.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

from nufi.cluster.kube_rest import KubeRefused
from nufi.db.types import utc_now
from nufi.errors import NufiError
from nufi.logging import get_logger
from nufi.workloads.intents import Recorder

_log = get_logger("nufi.workloads.reconcile")


class Reconciler:
    def __init__(self, recorder: Recorder, *, settle_after_seconds: float, interval_seconds: float) -> None:
        self._recorder = recorder
        self._settle_after = timedelta(seconds=settle_after_seconds)
        self._interval = interval_seconds
        self._task: asyncio.Task[None] | None = None

    async def run_once(self) -> int:
        """Settle every intent old enough; how many were settled (those that cannot be yet stay)."""
        settled = 0
        every = await self._recorder.store.open_intents()
        latest = {(i.target_kind, i.target_id): i.id for i in every}
        cutoff = utc_now() - self._settle_after
        for intent in (i for i in every if i.at < cutoff):
            try:
                if latest[(intent.target_kind, intent.target_id)] != intent.id:
                    # A later change of the same object is under way or itself left open: it saw
                    # what this one left and owns the object now; looking at the cluster for this one
                    # could undo that change's half-made work.
                    await self._recorder.store.abandon(intent)
                    settled += 1
                elif await self._recorder.settle(intent):
                    settled += 1
            except (NufiError, KubeRefused) as exc:
                _log.warning(
                    "intent not settled yet", action=intent.action, target=intent.target_id, error=str(exc)
                )
        return settled

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="nufi-intent-reconciler")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                await self.run_once()
            except (NufiError, KubeRefused) as exc:
                _log.warning("intents not read", error=str(exc))
            except Exception:
                # A bug in one pass must not end reconciliation for the life of the process.
                _log.exception("intent reconciliation failed")
            await asyncio.sleep(self._interval)
