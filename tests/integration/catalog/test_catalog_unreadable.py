"""A stored row that no longer makes a valid device type (saved before a bound existed, or edited in the
database) keeps the rest of the catalog readable: the list leaves it out, the type itself answers a
409 saying what to do, and an admin can still delete it (audited as it was stored)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from nufi.db import Database, DeviceTypeRepository
from support.lpu_type import LPU_METRICS
from support.nufi_app import bearer
from support.world import World, serve

TOO_DEEP = "lpu_utilization_percent" + "+0" * 200


@pytest.fixture
async def nufi_with_a_bad_row(world: World, sqlite_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(world.settings(sqlite_url)) as client:
        database = Database.from_url(sqlite_url)
        try:
            async with database.transaction() as session:
                await DeviceTypeRepository(session).insert(
                    {
                        "id": "old-lpu",
                        "kind": "custom",
                        "name": "Saved before the bounds",
                        "vendor": "HyperAccel",
                        "resource_key": "example.com/old-lpu",
                        "labels": {"node": "node", "device": "device"},
                        "metrics": {**LPU_METRICS, "utilization": TOO_DEEP},
                    },
                    actor="migration",
                )
        finally:
            await database.close()
        yield client


async def test_the_catalog_stays_readable_and_the_row_can_go(
    nufi_with_a_bad_row: httpx.AsyncClient, world: World
) -> None:
    nufi, user, admin = nufi_with_a_bad_row, bearer(world.user_token), bearer(world.admin_token)
    listed = await nufi.get("/api/v1/devices", headers=user)
    assert listed.status_code == 200, listed.text
    ids = {row["id"] for row in listed.json()["items"]}
    assert "old-lpu" not in ids and {"nvidia-gpu", "furiosa-rngd", "rebellions-atom"} <= ids
    overview = await nufi.get("/api/v1/monitoring/overview", headers=user)
    assert overview.status_code == 200, overview.text

    one = await nufi.get("/api/v1/devices/old-lpu", headers=user)
    assert one.status_code == 409, one.text
    problem = one.json()
    assert problem["field"] == "metrics.utilization" and "delete it" in problem["detail"]

    deleted = await nufi.delete("/api/v1/admin/devices/old-lpu", headers=admin)
    assert deleted.status_code == 204, deleted.text
    audit = (await nufi.get("/api/v1/admin/audit", params={"target_id": "old-lpu"}, headers=admin)).json()
    (record,) = audit["items"]
    assert record["action"] == "device_type.delete"
    assert record["before"]["metrics"]["utilization"] == TOO_DEEP
    assert (await nufi.get("/api/v1/devices/old-lpu", headers=user)).status_code == 404
