"""Temperature policies and the history of thermal transitions in the database.

A policy change and its audit record are one transaction (the caller's); history rows are written by
the controller on its own, in short transactions of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import JsonObject, ThermalEventRow, ThermalPolicyRow

MAX_EVENTS_PAGE = 1000


class ThermalPolicyRepository:
    """Policy rows within the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def get(self, device_type_id: str) -> ThermalPolicyRow | None:
        return await self._session.get(ThermalPolicyRow, device_type_id)

    async def put(
        self, device_type_id: str, policy: JsonObject, *, actor: str, now: datetime
    ) -> ThermalPolicyRow:
        row = await self.get(device_type_id)
        if row is None:
            row = ThermalPolicyRow(
                device_type_id=device_type_id, policy=policy, revision=1, updated_at=now, updated_by=actor
            )
            self._session.add(row)
        else:
            row.policy = policy
            row.revision += 1
            row.updated_at = now
            row.updated_by = actor
        await self._session.flush()
        return row


class ThermalStore:
    """Reads of every policy, and the history, each in a session of its own."""

    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def policies(self) -> dict[str, JsonObject]:
        async with self._sessions() as session:
            rows = (await session.scalars(select(ThermalPolicyRow))).all()
        return {row.device_type_id: dict(row.policy) for row in rows}

    async def add_events(self, events: Sequence[ThermalEventRow]) -> None:
        if not events:
            return
        async with transaction(self._sessions) as session:
            session.add_all(events)

    async def events(
        self, *, limit: int = 100, device_type_id: str | None = None, node: str | None = None
    ) -> Sequence[ThermalEventRow]:
        """The newest `limit` transitions matching the filters given, newest first."""
        if not 1 <= limit <= MAX_EVENTS_PAGE:
            raise ValueError(f"limit must be between 1 and {MAX_EVENTS_PAGE}")
        statement = select(ThermalEventRow)
        if device_type_id is not None:
            statement = statement.where(ThermalEventRow.device_type_id == device_type_id)
        if node is not None:
            statement = statement.where(ThermalEventRow.node == node)
        statement = statement.order_by(ThermalEventRow.at.desc(), ThermalEventRow.id.desc()).limit(limit)
        async with self._sessions() as session:
            return (await session.scalars(statement)).all()
