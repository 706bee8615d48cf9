"""A type's effective protection policy is decided in one place with one failure policy: a stored
policy that no longer validates is never applied, the type's default is, and the entry says why, in
both languages. The controller, the alert rules, the alerts' thresholds, the API's service and the page
all read that same decision for the same rows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest

from nufi.alerts.desired import DesiredRules
from nufi.alerts.rules import rule_group
from nufi.alerts.service import AlertService
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import DEFAULT_ADMIN_ROLE, Principal
from nufi.db import Database
from nufi.db.tables import ThermalPolicyRow
from nufi.db.thermal import ThermalPolicyRepository
from nufi.db.types import utc_now
from nufi.devices.presets import official_presets
from nufi.devices.spec import DeviceType
from nufi.messages import Message
from nufi.thermal.effective import UNREADABLE, effective_policy
from nufi.thermal.history.records import ThermalRecords
from nufi.thermal.policy import ThermalPolicy, default_policy
from nufi.thermal.protection.controller import ControllerSettings, ThermalController
from nufi.thermal.service import ThermalService

ADMIN = Principal(subject="a", username="ada", roles=frozenset({DEFAULT_ADMIN_ROLE}))
GPU, NPU, ATOM = (t.id for t in official_presets())
GOOD = {"enabled": True, "trip_celsius": 80.0, "resume_celsius": 70.0}
# Valid when an older NuFi stored it, refused by today's rules: the resume is not below the trip.
BROKEN = {"enabled": True, "trip_celsius": 70.0, "resume_celsius": 80.0}


def _row(policy: dict[str, Any]) -> ThermalPolicyRow:
    return ThermalPolicyRow(
        device_type_id=NPU, policy=policy, revision=3, updated_at=utc_now(), updated_by="x"
    )


def _type(device_type_id: str) -> DeviceType:
    return next(t for t in official_presets() if t.id == device_type_id)


def test_a_stored_policy_that_no_longer_validates_applies_the_default_and_says_why() -> None:
    entry = effective_policy(_type(NPU), _row(BROKEN))
    assert entry.policy == default_policy(_type(NPU).thermal)
    assert entry.source == "default" and entry.revision is None
    assert entry.unreadable is not None and entry.unreadable.code == UNREADABLE
    assert entry.unreadable.params["reason"] == Message(
        "thermal_policy.resume_not_below_trip", {"resume": 80.0, "trip": 70.0}
    )
    assert NPU in entry.unreadable.text("en") and "default" in entry.unreadable.text("en")
    assert NPU in entry.unreadable.text("ko") and "기본 정책" in entry.unreadable.text("ko")


def test_a_valid_stored_policy_is_applied_and_none_stored_is_the_default() -> None:
    stored = effective_policy(_type(NPU), _row(GOOD))
    assert (stored.policy, stored.source, stored.revision) == (ThermalPolicy.model_validate(GOOD), "admin", 3)
    assert stored.unreadable is None
    assert effective_policy(_type(NPU), None).policy == default_policy(_type(NPU).thermal)


class _Catalog:
    async def list(self, principal: Principal, *, enabled_only: bool = False) -> list[DeviceType]:
        return official_presets()

    async def get(self, principal: Principal, device_type_id: str) -> DeviceType:
        return _type(device_type_id)


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}")
    try:
        await database.upgrade()
        async with database.transaction() as session:
            await ThermalPolicyRepository(session).put(GPU, GOOD, actor="ada", now=utc_now())
            await ThermalPolicyRepository(session).put(NPU, BROKEN, actor="ada", now=utc_now())
        yield database
    finally:
        await database.close()


async def test_controller_alerts_and_api_apply_the_same_policy_for_the_same_rows(database: Database) -> None:
    catalog = cast(Any, _Catalog())
    controller = ThermalController(
        catalog=catalog,
        monitoring=cast(Any, None),
        cluster=cast(Any, None),
        records=ThermalRecords(database.sessions),
        elector=None,
        settings=ControllerSettings(interval_seconds=1, max_snapshot_age_seconds=1),
        identity="test",
    )
    service = ThermalService(
        catalog=catalog,
        monitoring=cast(Any, None),
        cluster=cast(Any, None),
        database=database,
        projects=cast(Any, None),
        controller=None,
    )
    alerts = AlertService(
        catalog=catalog,
        database=database,
        prometheus=cast(Any, None),
        visibility=cast(Any, None),
        sync=cast(Any, None),
    )
    applied = await controller._policies()
    shown = {entry.device_type: entry for entry in await service.policies(ADMIN)}
    groups = {group.device_type: group for group in (await DesiredRules(catalog, database).wanted()).groups}
    for device_type in (GPU, NPU, ATOM):
        policy = shown[device_type].policy
        assert applied[device_type] == policy
        assert (await alerts.thresholds(ADMIN, device_type)).hot_celsius == policy.trip_celsius
        assert groups[device_type] == rule_group(_type(device_type), AlertThresholds(), policy.trip_celsius)
    assert applied[GPU] == ThermalPolicy.model_validate(GOOD)
    assert applied[NPU] == default_policy(_type(NPU).thermal)
    assert shown[NPU].unreadable is not None and shown[GPU].unreadable is None
    # The controller reports it too (its status' problems), not only the log.
    assert [problem.code for problem in controller._unreadable] == [UNREADABLE]
