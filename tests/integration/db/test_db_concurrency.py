"""Concurrent writers and half-finished writes, on SQLite and PostgreSQL.

The acceptance bar of the device catalog: 20 parallel registrations of one resource key end with
exactly one success and nineteen conflicts, and a registration that fails half-way leaves nothing.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from nufi.db import AuditRecordRow, AuditRepository, Database, DeviceTypeRepository, DeviceTypeRow
from nufi.errors import Conflict

from .db_helpers import device_type

# SQLAlchemy warns about session misuse (e.g. stale identities) instead of failing; here it fails.
pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")

PARALLEL = 20


async def register(
    database: Database, id: str, resource_key: str, *, look_first: bool = True
) -> DeviceTypeRow:
    """What the device service does for POST /admin/devices: the type and its audit record, together."""
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        if look_first:
            # A service looks before it leaps; that read must not turn the later write into "database
            # is locked" on SQLite, and the unique constraint must still catch what the read missed.
            holder = next((row for row in await repo.list() if row.resource_key == resource_key), None)
            if holder is not None:
                raise Conflict(
                    code="http.status", params={"status": 409}, field="resource_key", device_type=holder.id
                )
            await asyncio.sleep(0)
        row = await repo.insert(device_type(id, resource_key), actor="admin")
        # Give the other writers every chance to interleave between the two statements.
        await asyncio.sleep(0)
        await AuditRepository(session).record(
            "admin",
            "device_type.create",
            "device_type",
            id,
            before=None,
            after={"id": row.id, "resource_key": row.resource_key},
        )
        return row


async def counts(database: Database) -> tuple[int, int]:
    async with database.session() as session:
        devices = await session.scalar(select(func.count()).select_from(DeviceTypeRow))
        audits = await session.scalar(select(func.count()).select_from(AuditRecordRow))
    return int(devices or 0), int(audits or 0)


@pytest.mark.parametrize("look_first", [True, False], ids=["look-then-insert", "blind-insert"])
async def test_parallel_registrations_of_one_resource_key_let_exactly_one_through(
    database: Database, look_first: bool
) -> None:
    results = await asyncio.gather(
        *(
            register(database, f"lpu-{n}", "hyperaccel.ai/lpu", look_first=look_first)
            for n in range(PARALLEL)
        ),
        return_exceptions=True,
    )
    winners = [r for r in results if isinstance(r, DeviceTypeRow)]
    conflicts = [r for r in results if isinstance(r, Conflict)]
    others = [r for r in results if not isinstance(r, DeviceTypeRow | Conflict)]
    assert others == []
    assert (len(winners), len(conflicts)) == (1, PARALLEL - 1)
    assert all(c.extra["field"] == "resource_key" for c in conflicts)
    assert all(c.extra["device_type"] == winners[0].id for c in conflicts)
    assert await counts(database) == (1, 1)
    async with database.session() as session:
        (stored,) = await DeviceTypeRepository(session).list()
        (audit,) = await AuditRepository(session).list()
    assert (stored.id, stored.resource_key) == (winners[0].id, "hyperaccel.ai/lpu")
    assert audit.target_id == winners[0].id


async def test_parallel_registrations_of_one_id_let_exactly_one_through(database: Database) -> None:
    results = await asyncio.gather(
        *(register(database, "lpu", f"vendor{n}.example.com/lpu") for n in range(PARALLEL)),
        return_exceptions=True,
    )
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert sum(isinstance(r, DeviceTypeRow) for r in results) == 1
    assert len(conflicts) == PARALLEL - 1
    assert {c.extra["field"] for c in conflicts} == {"id"}
    assert await counts(database) == (1, 1)


async def test_parallel_updates_of_one_revision_let_exactly_one_through(database: Database) -> None:
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="admin")

    async def rename(n: int) -> DeviceTypeRow:
        async with database.transaction() as session:
            return await DeviceTypeRepository(session).update("lpu", 1, {"name": f"name {n}"}, actor="admin")

    results = await asyncio.gather(*(rename(n) for n in range(10)), return_exceptions=True)
    winners = [r for r in results if isinstance(r, DeviceTypeRow)]
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert (len(winners), len(conflicts)) == (1, 9)
    assert all("revision 2" in c.detail for c in conflicts)
    async with database.session() as session:
        stored = await DeviceTypeRepository(session).get("lpu")
    assert stored is not None and (stored.name, stored.revision) == (winners[0].name, 2)


async def test_a_registration_that_raises_half_way_leaves_nothing(database: Database) -> None:
    with pytest.raises(RuntimeError, match="half-way"):
        async with database.transaction() as session:
            await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="a")
            await AuditRepository(session).record("a", "device_type.create", "device_type", "lpu")
            raise RuntimeError("failed half-way")
    assert await counts(database) == (0, 0)


async def test_a_refused_audit_record_takes_its_device_type_with_it(database: Database) -> None:
    with pytest.raises(IntegrityError):
        async with database.transaction() as session:
            await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="a")
            # NOT NULL actor: the database itself refuses the second statement.
            await AuditRepository(session).record(None, "device_type.create", "device_type", "lpu")  # type: ignore[arg-type]
    assert await counts(database) == (0, 0)
    # The resource key was never taken.
    assert isinstance(await register(database, "lpu", "hyperaccel.ai/lpu"), DeviceTypeRow)


async def test_readers_are_not_held_up_by_an_open_write(database: Database) -> None:
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("a", "example.com/a"), actor="admin")
    async with database.transaction() as writer:
        await DeviceTypeRepository(writer).insert(device_type("b", "example.com/b"), actor="admin")

        async def read() -> list[str]:
            async with database.session() as reader:
                return [row.id for row in await DeviceTypeRepository(reader).list()]

        # Well inside SQLite's busy timeout: a reader that waited for the writer would time out here.
        seen = await asyncio.wait_for(read(), timeout=2.0)
    assert seen == ["a"]
