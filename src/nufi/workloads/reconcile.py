"""The reconciler: settles intents whose request ended without settling them (a crash, `kill -9`, a
database or API server unreachable at the end).

It runs on every replica, at start and then every interval. An intent is settled once no request can
still be making it: when the replica that wrote it is known to have stopped (its lease in
`db/replica_leases.py` ran out: this reconciler renews its own replica's lease every third of
`NUFI_INTENT_LEASE_SECONDS`, and ends it when the replica shuts down), at once; otherwise once it is
older than any request may take (`NUFI_INTENT_SETTLE_AFTER_SECONDS`). So it never races a change still
under way, and an auditor reading soon after a crash finds the record. The next pass is brought
forward to the moment the first waiting intent may be settled.
No Lease is needed: each settler's cluster steps are idempotent (deleting something absent, creating
a RoleBinding that exists), and completing an intent removes its row and writes its audit record in
one transaction that only one replica can win (`db/intents.py`).
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta

from nufi.background.jobs import INTENT_RECONCILER
from nufi.background.periodic import Periodic
from nufi.cluster.workload_apply import Refused
from nufi.db.replica_leases import DEFAULT_LEASE_SECONDS
from nufi.db.types import utc_now
from nufi.errors import NufiError
from nufi.logging import get_logger
from nufi.workloads.intents import Recorder

_log = get_logger("nufi.workloads.reconcile")


class Reconciler:
    def __init__(
        self,
        recorder: Recorder,
        *,
        settle_after_seconds: float,
        interval_seconds: float,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        self._recorder = recorder
        self._leases = recorder.store.leases
        self._settle_after = timedelta(seconds=settle_after_seconds)
        self._interval = interval_seconds
        self._lease_seconds = lease_seconds
        # When the first intent left waiting by the last pass may be settled (None: none waits).
        self._next_due: datetime | None = None
        self._next_pass = utc_now()
        self._renewed = False
        # Woken every third of the lease to renew it, failing or not (a lease run out would let the
        # others settle this replica's intents under its running requests); a pass runs when due.
        self.job = Periodic(INTENT_RECONCILER, lease_seconds / 3, self._tick, on_stop=self._stopped)

    async def run_once(self) -> int:
        """Settle every intent whose writer has stopped or that is old enough; how many were settled
        (those that cannot be yet stay)."""
        settled = 0
        now = utc_now()
        every = await self._recorder.store.open_intents()
        latest = {(i.target_kind, i.target_id): i.id for i in every}
        others = {i.holder for i in every if i.holder != self._recorder.holder}
        expiries = await self._leases.expiries(others)
        due: list[datetime] = []
        for intent in every:
            settle_at = intent.at + self._settle_after
            if intent.holder in expiries:
                settle_at = min(settle_at, expiries[intent.holder])
            if settle_at > now:
                due.append(settle_at)
                continue
            try:
                if latest[(intent.target_kind, intent.target_id)] != intent.id:
                    # A later change of the same object is under way or itself left open: it saw
                    # what this one left and owns the object now; looking at the cluster for this one
                    # could undo that change's half-made work.
                    await self._recorder.store.abandon(intent)
                    settled += 1
                elif await self._recorder.settle(intent):
                    settled += 1
            except (NufiError, Refused) as exc:
                _log.warning(
                    "intent not settled yet", action=intent.action, target=intent.target_id, error=str(exc)
                )
        self._next_due = min(due, default=None)
        await self._leases.forget_expired_before(now - self._settle_after)
        return settled

    def start(self) -> None:
        self.job.start()

    async def close(self) -> None:
        await self.job.close()

    async def _stopped(self) -> None:
        if self._renewed:
            # Whatever this replica left open is no request's any more: the others settle it at once.
            with contextlib.suppress(NufiError):
                await self._leases.release(self._recorder.holder)

    async def _tick(self) -> float:
        """Renew this replica's lease, and run a pass when one is due; the seconds to the next tick."""
        try:
            await self._leases.renew(self._recorder.holder, self._lease_seconds)
            self._renewed = True
        except NufiError as exc:
            _log.warning("replica lease not renewed", error=str(exc))
        if utc_now() >= self._next_pass:
            # A failed pass is tried again after the interval, not at the next renewal.
            self._next_pass = utc_now() + timedelta(seconds=self._interval)
            await self.run_once()
            if self._next_due is not None:
                self._next_pass = min(self._next_pass, self._next_due)
        return max(min(self._lease_seconds / 3, (self._next_pass - utc_now()).total_seconds()), 0.0)
