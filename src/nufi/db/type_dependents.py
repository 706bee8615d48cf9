"""The rows that belong to one device type besides its own: its temperature policy, its alert
thresholds and its thermal history. They go with the type, in the caller's transaction, so a type
registered later under the same id starts from the defaults and an empty history."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from nufi.db.tables import AlertThresholdsRow, JsonObject, ThermalEventRow, ThermalPolicyRow, TypeDocument


@dataclass(frozen=True, slots=True)
class RemovedDependents:
    """What went with a type: the policy and thresholds it had (None when it used the defaults) and
    how many history rows were deleted."""

    thermal_policy: JsonObject | None
    alert_thresholds: JsonObject | None
    thermal_events: int

    def audit_view(self) -> JsonObject:
        return {
            "thermal_policy": self.thermal_policy,
            "alert_thresholds": self.alert_thresholds,
            "thermal_events": self.thermal_events,
        }


class DeviceTypeDependentsRepository:
    """A type's dependent rows within the caller's session; never commits."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def remove(self, device_type_id: str) -> RemovedDependents:
        policy = await self._remove_document(ThermalPolicyRow, ThermalPolicyRow.policy, device_type_id)
        thresholds = await self._remove_document(
            AlertThresholdsRow, AlertThresholdsRow.thresholds, device_type_id
        )
        events = await self._session.execute(
            delete(ThermalEventRow).where(ThermalEventRow.device_type_id == device_type_id)
        )
        return RemovedDependents(
            thermal_policy=None if policy is None else dict(policy),
            alert_thresholds=None if thresholds is None else dict(thresholds),
            thermal_events=int(getattr(events, "rowcount", 0) or 0),
        )

    async def _remove_document(
        self, table: type[TypeDocument], document: InstrumentedAttribute[JsonObject], device_type_id: str
    ) -> JsonObject | None:
        """Delete the type's row of `table`, giving back the document it held (None: there was none)."""
        removed = delete(table).where(table.device_type_id == device_type_id).returning(document)
        return (await self._session.scalars(removed)).one_or_none()
