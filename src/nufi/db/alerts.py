"""Alert thresholds per device type in the database; a change and its audit record are one
transaction (the caller's)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import AlertThresholdsRow, JsonObject


class AlertThresholdsRepository:
    """Threshold rows within the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def get(self, device_type_id: str) -> AlertThresholdsRow | None:
        return await self._session.get(AlertThresholdsRow, device_type_id)

    async def put(
        self, device_type_id: str, thresholds: JsonObject, *, actor: str, now: datetime
    ) -> AlertThresholdsRow:
        row = await self.get(device_type_id)
        if row is None:
            row = AlertThresholdsRow(
                device_type_id=device_type_id,
                thresholds=thresholds,
                revision=1,
                updated_at=now,
                updated_by=actor,
            )
            self._session.add(row)
        else:
            row.thresholds = thresholds
            row.revision += 1
            row.updated_at = now
            row.updated_by = actor
        await self._session.flush()
        return row


class AlertThresholdsStore:
    """Reads of every type's thresholds, and the removal of those whose type is gone."""

    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def all(self) -> dict[str, JsonObject]:
        async with self._sessions() as session:
            rows = (await session.scalars(select(AlertThresholdsRow))).all()
        return {row.device_type_id: dict(row.thresholds) for row in rows}

    async def remove_except(self, kept: Collection[str], *, written_before: datetime) -> int:
        """Delete the rows of types not in `kept` last written before `written_before` (when `kept`
        was read: a type registered since, and its thresholds, are not in it); how many were deleted."""
        async with transaction(self._sessions) as session:
            result = await session.execute(
                delete(AlertThresholdsRow).where(
                    AlertThresholdsRow.device_type_id.not_in(list(kept)),
                    AlertThresholdsRow.updated_at < written_before,
                )
            )
        return int(getattr(result, "rowcount", 0) or 0)
