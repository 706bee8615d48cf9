"""Intents in the database: a cluster change recorded before it is made, then settled.

Each call is a transaction of its own. `open` commits before the cluster is touched, so a crash
after it leaves the row for the reconciler. `complete` removes the row and adds its audit record in one
transaction, and only when the row is still there: of two replicas settling the same intent, exactly one
writes the record (the second finds the row gone, on SQLite and on PostgreSQL alike, because the delete
of a row waits for a concurrent delete of it and then counts nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.engine import CursorResult
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.audit import AuditRepository, check_action
from nufi.db.replica_leases import ReplicaLeases
from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import IntentRow, JsonObject, Record
from nufi.db.types import utc_now


@dataclass(frozen=True)
class Intent(Record):
    """A change about to be made, and the replica making it."""

    holder: str


class IntentStore:
    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions
        # Whether an intent's writer may still be at work (db/replica_leases.py).
        self.leases = ReplicaLeases(sessions)

    async def open(
        self,
        *,
        actor: str,
        action: str,
        target_kind: str,
        target_id: str,
        holder: str,
        before: JsonObject | None = None,
        after: JsonObject | None = None,
        details: JsonObject | None = None,
    ) -> Intent:
        """Commit the intent; a database that cannot take it, or an action the audit log does not
        know, raises here, before anything is changed."""
        check_action(action)
        async with transaction(self._sessions) as session:
            row = IntentRow(
                at=utc_now(),
                actor=actor,
                action=action,
                target_kind=target_kind,
                target_id=target_id,
                before=before,
                after=after,
                details=details,
                holder=holder,
            )
            session.add(row)
            await session.flush()
            return _intent(row)

    async def complete(
        self,
        intent: Intent,
        *,
        after: JsonObject | None = None,
        details: JsonObject | None = None,
    ) -> bool:
        """Turn the intent into its audit record (with `after` / `details` when given, else the
        planned ones); False when it was already settled, by this replica or another."""
        async with transaction(self._sessions) as session:
            if not await _remove(session, intent.id):
                return False
            await AuditRepository(session).record(
                intent.actor,
                intent.action,
                intent.target_kind,
                intent.target_id,
                before=intent.before,
                after=intent.after if after is None else after,
                details=intent.details if details is None else details,
            )
        return True

    async def abandon(self, intent: Intent) -> bool:
        """Remove an intent whose change did not happen (nothing to audit); False when already settled."""
        async with transaction(self._sessions) as session:
            return await _remove(session, intent.id)

    async def open_intents(self, *, opened_before: datetime | None = None) -> list[Intent]:
        """Intents not yet settled, oldest first (only those opened before `opened_before` if given)."""
        statement = select(IntentRow).order_by(IntentRow.id)
        if opened_before is not None:
            statement = statement.where(IntentRow.at < opened_before)
        async with self._sessions() as session:
            rows: Sequence[IntentRow] = (await session.scalars(statement)).all()
        return [_intent(row) for row in rows]


async def _remove(session: AsyncSession, intent_id: int) -> bool:
    result = await session.execute(delete(IntentRow).where(IntentRow.id == intent_id))
    assert isinstance(result, CursorResult)
    return bool(result.rowcount == 1)


def _intent(row: IntentRow) -> Intent:
    return Intent(**row.recorded(), holder=row.holder)
