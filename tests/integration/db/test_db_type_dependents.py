"""A device type's dependent rows on SQLite and PostgreSQL: removed for that type only, reported as
they were, and kept when the transaction that removed them fails."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from nufi.db import Database, DeviceTypeDependentsRepository
from nufi.db.alerts import AlertThresholdsRepository
from nufi.db.tables import ThermalEventRow
from nufi.db.thermal import ThermalPolicyRepository

pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _event(device_type_id: str) -> ThermalEventRow:
    return ThermalEventRow(
        at=NOW,
        device_type_id=device_type_id,
        node="node-1",
        device=None,
        to_state="hot",
        temperature_celsius=95.0,
        details={},
        message="hot",
    )


async def _seed(database: Database) -> None:
    async with database.transaction() as session:
        for device_type_id in ("lpu", "npu"):
            await ThermalPolicyRepository(session).put(
                device_type_id, {"enabled": True, "of": device_type_id}, actor="alice", now=NOW
            )
            await AlertThresholdsRepository(session).put(
                device_type_id, {"hot": {"celsius": 70}}, actor="alice", now=NOW
            )
        session.add_all([_event("lpu"), _event("lpu"), _event("npu")])


async def _counts(database: Database, device_type_id: str) -> tuple[bool, bool, int]:
    async with database.transaction() as session:
        policy = await ThermalPolicyRepository(session).get(device_type_id)
        thresholds = await AlertThresholdsRepository(session).get(device_type_id)
        events = await session.scalar(
            select(func.count())
            .select_from(ThermalEventRow)
            .where(ThermalEventRow.device_type_id == device_type_id)
        )
    return policy is not None, thresholds is not None, int(events or 0)


async def test_only_the_types_rows_go_and_are_reported(database: Database) -> None:
    await _seed(database)
    async with database.transaction() as session:
        removed = await DeviceTypeDependentsRepository(session).remove("lpu")
    assert removed.thermal_policy == {"enabled": True, "of": "lpu"}
    assert removed.alert_thresholds == {"hot": {"celsius": 70}}
    assert removed.thermal_events == 2
    assert await _counts(database, "lpu") == (False, False, 0)
    assert await _counts(database, "npu") == (True, True, 1)


async def test_a_type_on_the_defaults_removes_nothing(database: Database) -> None:
    async with database.transaction() as session:
        removed = await DeviceTypeDependentsRepository(session).remove("lpu")
    assert removed.audit_view() == {"thermal_policy": None, "alert_thresholds": None, "thermal_events": 0}


async def test_a_transaction_failing_after_the_removal_keeps_every_row(database: Database) -> None:
    await _seed(database)
    with pytest.raises(RuntimeError):
        async with database.transaction() as session:
            await DeviceTypeDependentsRepository(session).remove("lpu")
            raise RuntimeError("the type row could not be deleted")
    assert await _counts(database, "lpu") == (True, True, 2)
