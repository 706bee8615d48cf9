"""Alert thresholds per device type in the database; a change and its audit record are one
transaction (the caller's)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.per_type import PerTypeRepository
from nufi.db.tables import AlertThresholdsRow


class AlertThresholdsRepository(PerTypeRepository[AlertThresholdsRow]):
    """Threshold rows within the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        super().__init__(session, AlertThresholdsRow, "thresholds")

    async def remove_except(self, kept: Collection[str], *, written_before: datetime) -> int:
        """Delete the rows of types not in `kept` last written before `written_before` (when `kept`
        was read: a type registered since, and its thresholds, are not in it); how many were deleted."""
        result = await self._session.execute(
            delete(AlertThresholdsRow).where(
                AlertThresholdsRow.device_type_id.not_in(list(kept)),
                AlertThresholdsRow.updated_at < written_before,
            )
        )
        return int(getattr(result, "rowcount", 0) or 0)
