"""Replica leases: how a replica tells whether the writer of an open intent may still be at work.

Each replica renews a row of its own (its intents' `holder`) every few seconds. A row whose
`expires_at` has passed belongs to a replica that stopped renewing it: killed, frozen past its lease,
or shut down (which expires its row at once). Its open intents are no request's any more, so the
reconciler settles them at its next pass. A holder with no row (its process died before its first
renewal, or wrote intents before this table existed) proves nothing, and its intents wait for
NUFI_INTENT_SETTLE_AFTER_SECONDS as before.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.engine import CursorResult

from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import ReplicaLeaseRow
from nufi.db.types import utc_now

# NUFI_INTENT_LEASE_SECONDS' default: long enough that a replica slowed down (a loaded node, a
# database failing over) is not taken for stopped, short enough that a crash is audited in seconds.
DEFAULT_LEASE_SECONDS = 20.0


class ReplicaLeases:
    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def renew(self, holder: str, seconds: float) -> None:
        """`holder` lives for `seconds` more. Only the holder writes its row, so update-or-insert does
        not race."""
        expires_at = utc_now() + timedelta(seconds=seconds)
        async with transaction(self._sessions) as session:
            result = await session.execute(
                update(ReplicaLeaseRow).where(ReplicaLeaseRow.holder == holder).values(expires_at=expires_at)
            )
            assert isinstance(result, CursorResult)
            if result.rowcount == 0:
                session.add(ReplicaLeaseRow(holder=holder, expires_at=expires_at))

    async def release(self, holder: str) -> None:
        """`holder` has stopped: its lease ends now (the row stays, as the proof of it)."""
        async with transaction(self._sessions) as session:
            await session.execute(
                update(ReplicaLeaseRow).where(ReplicaLeaseRow.holder == holder).values(expires_at=utc_now())
            )

    async def expiries(self, holders: Collection[str]) -> dict[str, datetime]:
        """When each of `holders` that has a lease stops (or stopped) being taken for alive."""
        if not holders:
            return {}
        statement = select(ReplicaLeaseRow).where(ReplicaLeaseRow.holder.in_(sorted(holders)))
        async with self._sessions() as session:
            return {row.holder: row.expires_at for row in (await session.scalars(statement)).all()}

    async def forget_expired_before(self, when: datetime) -> None:
        """Drop leases that ran out before `when`: by then their intents settle by age anyway."""
        async with transaction(self._sessions) as session:
            await session.execute(delete(ReplicaLeaseRow).where(ReplicaLeaseRow.expires_at < when))
