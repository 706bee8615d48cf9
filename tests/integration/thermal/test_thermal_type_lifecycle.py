"""A device type's protection settings and history go with it: deleting the type removes its thermal
policy, its alert thresholds and its thermal events in the same transaction, and says so in the audit
record; the same id registered again starts from the defaults. A delete that fails leaves them."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi.db import AuditRepository
from nufi.thermal.policy import ThermalPolicy
from support.world import World, register_lpu

# An admin's own condition; labelled so that Prometheus's check on save accepts it.
EXPRESSION = (
    'max by (node, device) (label_replace(label_replace(vector(95), "node", "lpu-node-1", "", ""),'
    ' "device", "0", "", ""))'
)
POLICY: dict[str, Any] = ThermalPolicy().model_dump(mode="json") | {
    "enabled": True,
    "trip_celsius": 90,
    "resume_celsius": 80,
    "custom": {"enabled": True, "expression": EXPRESSION, "trip_at": 90, "resume_at": 80},
}
THRESHOLDS = {"hot": {"celsius": 70}}


def _add_history(database: Path, count: int) -> None:
    with sqlite3.connect(database) as connection:
        connection.executemany(
            "INSERT INTO thermal_events (at, device_type_id, node, device, to_state, temperature_celsius,"
            " details, message) VALUES (?, 'lpu', 'lpu-node-1', NULL, 'hot', 95.0, '{}', 'hot')",
            [(datetime.now(UTC).isoformat(),)] * count,
        )


async def _policy(nufi: httpx.AsyncClient, world: World) -> dict[str, Any]:
    listed = (await nufi.get("/api/v1/thermal/policies", headers=world.admin)).json()["items"]
    return next(item for item in listed if item["device_type"] == "lpu")


async def _history(nufi: httpx.AsyncClient, world: World) -> list[dict[str, Any]]:
    response = await nufi.get("/api/v1/thermal/events", params={"device_type": "lpu"}, headers=world.admin)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


async def _customize(nufi: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    put = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=POLICY, headers=world.admin)
    assert put.status_code == 200, put.text
    put = await nufi.put("/api/v1/admin/devices/lpu/alerts", json=THRESHOLDS, headers=world.admin)
    assert put.status_code == 200, put.text
    _add_history(tmp_path / "nufi.db", 3)
    assert len(await _history(nufi, world)) == 3


async def test_a_type_deleted_and_registered_again_starts_from_the_defaults(
    nufi: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    await _customize(nufi, world, tmp_path)

    deleted = await nufi.delete("/api/v1/admin/devices/lpu", headers=world.admin)
    assert deleted.status_code == 204, deleted.text
    await register_lpu(nufi, world)

    policy = await _policy(nufi, world)
    assert policy["source"] == "default" and policy["policy"]["enabled"] is False, policy
    assert policy["policy"]["custom"]["enabled"] is False, policy
    thresholds = (await nufi.get("/api/v1/admin/devices/lpu/alerts", headers=world.admin)).json()
    assert thresholds["source"] == "default", thresholds
    assert thresholds["thresholds"]["hot"]["celsius"] != THRESHOLDS["hot"]["celsius"], thresholds
    assert await _history(nufi, world) == []

    audit = (
        await nufi.get("/api/v1/admin/audit", params={"target_kind": "device_type"}, headers=world.admin)
    ).json()["items"]
    (record,) = [item for item in audit if item["action"] == "device_type.delete"]
    dependents = record["before"]["dependents"]
    assert dependents["thermal_policy"]["custom"]["expression"] == EXPRESSION, dependents
    assert dependents["alert_thresholds"]["hot"]["celsius"] == 70, dependents
    assert dependents["thermal_events"] == 3, dependents


async def _assert_kept(nufi: httpx.AsyncClient, world: World) -> None:
    assert (await nufi.get("/api/v1/devices/lpu", headers=world.admin)).status_code == 200
    policy = await _policy(nufi, world)
    assert policy["source"] == "admin" and policy["policy"]["custom"]["expression"] == EXPRESSION
    thresholds = (await nufi.get("/api/v1/admin/devices/lpu/alerts", headers=world.admin)).json()
    assert thresholds["source"] == "admin" and thresholds["thresholds"]["hot"]["celsius"] == 70
    assert len(await _history(nufi, world)) == 3


async def test_a_delete_refused_leaves_the_policy_thresholds_and_history(
    nufi: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    await _customize(nufi, world, tmp_path)

    # A stale revision: the type row is not deleted, and nothing of what belongs to it either.
    refused = await nufi.delete("/api/v1/admin/devices/lpu", params={"revision": 999}, headers=world.admin)
    assert refused.status_code == 409, refused.text
    await _assert_kept(nufi, world)


async def test_a_delete_failing_after_the_dependents_went_leaves_them(
    nufi: httpx.AsyncClient, world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _customize(nufi, world, tmp_path)

    # The audit record is written last, after the type and its dependents are deleted.
    async def broken_record(*_: object, **__: object) -> None:
        raise RuntimeError("the audit log is unavailable")

    monkeypatch.setattr(AuditRepository, "record", broken_record)
    failed = await nufi.delete("/api/v1/admin/devices/lpu", headers=world.admin)
    monkeypatch.undo()
    assert failed.status_code == 500, failed.text
    await _assert_kept(nufi, world)
