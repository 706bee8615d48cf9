"""Settings an admin keeps per device type, one row each with a revision (a thermal policy, alert
thresholds): read and written alike; a write and its audit record are one transaction (the caller's)."""

from __future__ import annotations

from datetime import datetime
from typing import Generic, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.tables import AlertThresholdsRow, JsonObject, ThermalPolicyRow

Row = TypeVar("Row", ThermalPolicyRow, AlertThresholdsRow)


class PerTypeRepository(Generic[Row]):
    """The rows of one per-type table within the caller's session; a subclass names the table and the
    column holding the setting."""

    def __init__(self, session: AsyncSession, table: type[Row], column: str) -> None:
        self._session = session
        self._table: type[Row] = table
        self._column = column

    async def get(self, device_type_id: str) -> Row | None:
        return await self._session.get(self._table, device_type_id)

    async def all(self) -> dict[str, Row]:
        rows = (await self._session.scalars(select(self._table))).all()
        return {row.device_type_id: row for row in rows}

    async def put(self, device_type_id: str, value: JsonObject, *, actor: str, now: datetime) -> Row:
        row = await self.get(device_type_id)
        if row is None:
            row = self._table(device_type_id=device_type_id, revision=1, updated_at=now, updated_by=actor)
            self._session.add(row)
        else:
            row.revision += 1
            row.updated_at = now
            row.updated_by = actor
        setattr(row, self._column, value)
        await self._session.flush()
        return row
