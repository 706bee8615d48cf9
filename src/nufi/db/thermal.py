"""Temperature policies and the history of thermal transitions in the database, within the caller's
session.

A policy change and its audit record are one transaction (the caller's); history rows are written by
the controller on its own, in short transactions of their own.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.per_type import PerTypeRepository
from nufi.db.tables import ThermalEventRow, ThermalPolicyRow

MAX_EVENTS_PAGE = 1000


class ThermalPolicyRepository(PerTypeRepository[ThermalPolicyRow]):
    """Policy rows, as stored: `nufi.thermal` decides what each means."""

    def __init__(self, session: AsyncSession) -> None:
        super().__init__(session, ThermalPolicyRow, "policy")


class ThermalEventRepository:
    """History rows within the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    def add(self, events: Sequence[ThermalEventRow]) -> None:
        self._session.add_all(events)

    async def newest(
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
        return (await self._session.scalars(statement)).all()
