"""Registrations racing for one resource key, on SQLite and PostgreSQL, and a save that fails half-way."""

from __future__ import annotations

import asyncio

import pytest

from nufi.db import AuditRepository
from support.lpu_type import lpu_type
from support.nufi_app import bearer
from support.world import World, serve


async def test_twenty_parallel_registrations_of_one_key(world: World, database_url: str) -> None:
    async with serve(world.settings(database_url)) as client:

        async def register(i: int) -> int:
            body = lpu_type()
            body["id"] = f"lpu-{i}"
            response = await client.post(
                "/api/v1/admin/devices", json=body, headers=bearer(world.admin_token)
            )
            return response.status_code

        codes = await asyncio.gather(*(register(i) for i in range(20)))
        assert sorted(codes) == [201] + [409] * 19
        listed = (await client.get("/api/v1/devices", headers=bearer(world.admin_token))).json()["items"]
        assert len([row for row in listed if row["kind"] == "custom"]) == 1
        audit = (await client.get("/api/v1/admin/audit", headers=bearer(world.admin_token))).json()
        assert audit["total"] == 1


async def test_a_save_failing_half_way_leaves_nothing(
    world: World, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken_record(*_: object, **__: object) -> None:
        raise RuntimeError("the audit log is unavailable")

    monkeypatch.setattr(AuditRepository, "record", broken_record)
    async with serve(world.settings(database_url)) as client:
        response = await client.post(
            "/api/v1/admin/devices", json=lpu_type(), headers=bearer(world.admin_token)
        )
        assert response.status_code == 500
        assert "the audit log" not in response.text  # no internals leak
        monkeypatch.undo()
        assert (await client.get("/api/v1/devices/lpu", headers=bearer(world.admin_token))).status_code == 404
        audit = (await client.get("/api/v1/admin/audit", headers=bearer(world.admin_token))).json()
        assert audit["total"] == 0
