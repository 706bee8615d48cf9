"""DeviceTypeRepository on SQLite and PostgreSQL: storage, conflicts, compare-and-set, deletes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from nufi.db import Database, DeviceTypeRepository
from nufi.errors import Conflict, NotFound

from .db_helpers import device_type

# SQLAlchemy warns about session misuse (e.g. stale identities) instead of failing; here it fails.
pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")


async def test_a_stored_device_type_reads_back_whole(database: Database) -> None:
    before = datetime.now(UTC)
    async with database.transaction() as session:
        inserted = await DeviceTypeRepository(session).insert(
            device_type("lpu", "hyperaccel.ai/lpu", thermal={"max_celsius": 85}), actor="alice"
        )
    assert inserted.revision == 1

    async with database.session() as session:
        repo = DeviceTypeRepository(session)
        by_id = await repo.get("lpu")
        listed = await repo.list()
    assert by_id is not None
    assert [(row.id, row.resource_key) for row in listed] == [("lpu", "hyperaccel.ai/lpu")]
    assert by_id.name == "Accelerator lpu"
    assert by_id.kind == "custom"
    assert by_id.enabled is True
    assert by_id.labels["device"] == "device"
    assert by_id.metrics["memory"] == {
        "mode": "used_total",
        "used": "lpu_memory_used_bytes",
        "total": "lpu_memory_total_bytes",
        "unit": "bytes",
    }
    assert by_id.metrics["power"] is None
    assert by_id.thermal == {"max_celsius": 85}
    assert (by_id.revision, by_id.created_by, by_id.updated_by) == (1, "alice", "alice")
    assert by_id.created_at.tzinfo is not None
    assert by_id.created_at.utcoffset() == timedelta(0)
    assert before - timedelta(seconds=1) <= by_id.created_at <= datetime.now(UTC) + timedelta(seconds=1)
    assert by_id.updated_at == by_id.created_at


async def test_missing_device_types_read_as_none(database: Database) -> None:
    async with database.session() as session:
        repo = DeviceTypeRepository(session)
        assert await repo.get("nope") is None
        assert await repo.list() == []


async def test_list_is_ordered_by_id(database: Database) -> None:
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        for id in ("zeta", "alpha", "mid"):
            await repo.insert(device_type(id, f"example.com/{id}"), actor="alice")
    async with database.session() as session:
        assert [row.id for row in await DeviceTypeRepository(session).list()] == ["alpha", "mid", "zeta"]


async def test_a_duplicate_id_is_a_conflict_naming_the_id(database: Database) -> None:
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="alice")
    with pytest.raises(Conflict) as caught:
        async with database.transaction() as session:
            await DeviceTypeRepository(session).insert(device_type("lpu", "other.ai/lpu"), actor="bob")
    assert caught.value.extra["field"] == "id"
    assert "'lpu'" in caught.value.detail
    async with database.session() as session:
        assert [row.resource_key for row in await DeviceTypeRepository(session).list()] == [
            "hyperaccel.ai/lpu"
        ]


async def test_a_taken_resource_key_is_a_conflict_naming_its_holder(database: Database) -> None:
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="alice")
    with pytest.raises(Conflict) as caught:
        async with database.transaction() as session:
            await DeviceTypeRepository(session).insert(device_type("lpu2", "hyperaccel.ai/lpu"), actor="bob")
    assert caught.value.extra["field"] == "resource_key"
    assert caught.value.extra["resource_key"] == "hyperaccel.ai/lpu"
    assert caught.value.extra["device_type"] == "lpu"
    assert "'hyperaccel.ai/lpu'" in caught.value.detail
    assert "'lpu'" in caught.value.detail


async def test_a_conflict_leaves_the_callers_transaction_usable(database: Database) -> None:
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        await repo.insert(device_type("a", "example.com/a"), actor="alice")
        with pytest.raises(Conflict):
            await repo.insert(device_type("b", "example.com/a"), actor="alice")
        await repo.insert(device_type("c", "example.com/c"), actor="alice")
    async with database.session() as session:
        assert [row.id for row in await DeviceTypeRepository(session).list()] == ["a", "c"]


async def test_update_at_the_current_revision_applies_and_bumps_it(database: Database) -> None:
    async with database.transaction() as session:
        created = await DeviceTypeRepository(session).insert(
            device_type("lpu", "hyperaccel.ai/lpu"), actor="alice"
        )
    async with database.transaction() as session:
        updated = await DeviceTypeRepository(session).update(
            "lpu", 1, {"enabled": False, "name": "LPU v2", "thermal": {"max_celsius": 80}}, actor="bob"
        )
    assert updated.revision == 2
    assert (updated.enabled, updated.name, updated.thermal) == (False, "LPU v2", {"max_celsius": 80})
    async with database.session() as session:
        stored = await DeviceTypeRepository(session).get("lpu")
    assert stored is not None
    assert (stored.revision, stored.enabled, stored.name) == (2, False, "LPU v2")
    assert (stored.created_by, stored.updated_by) == ("alice", "bob")
    assert stored.created_at == created.created_at
    assert stored.updated_at >= stored.created_at
    # Untouched columns keep their values.
    assert stored.resource_key == "hyperaccel.ai/lpu"
    assert stored.labels == created.labels


async def test_update_at_a_stale_revision_is_a_conflict_naming_the_current_one(database: Database) -> None:
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        await repo.insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="alice")
        await repo.update("lpu", 1, {"name": "first"}, actor="alice")
        await repo.update("lpu", 2, {"name": "second"}, actor="alice")
    with pytest.raises(Conflict) as caught:
        async with database.transaction() as session:
            await DeviceTypeRepository(session).update("lpu", 1, {"name": "late"}, actor="bob")
    assert "was changed by someone else (revision 3" in caught.value.detail
    assert caught.value.extra["current_revision"] == 3
    assert caught.value.extra["expected_revision"] == 1
    async with database.session() as session:
        stored = await DeviceTypeRepository(session).get("lpu")
    assert stored is not None and (stored.name, stored.revision) == ("second", 3)


async def test_updating_a_missing_device_type_is_not_found(database: Database) -> None:
    with pytest.raises(NotFound) as caught:
        async with database.transaction() as session:
            await DeviceTypeRepository(session).update("ghost", 1, {"name": "x"}, actor="bob")
    assert "'ghost'" in caught.value.detail


async def test_updating_to_a_taken_resource_key_is_a_conflict(database: Database) -> None:
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        await repo.insert(device_type("a", "example.com/a"), actor="alice")
        await repo.insert(device_type("b", "example.com/b"), actor="alice")
    with pytest.raises(Conflict) as caught:
        async with database.transaction() as session:
            await DeviceTypeRepository(session).update("b", 1, {"resource_key": "example.com/a"}, actor="bob")
    assert caught.value.extra["field"] == "resource_key"
    assert caught.value.extra["device_type"] == "a"
    async with database.session() as session:
        stored = await DeviceTypeRepository(session).get("b")
    assert stored is not None and (stored.resource_key, stored.revision) == ("example.com/b", 1)


async def test_update_refuses_columns_that_never_change(database: Database) -> None:
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        await repo.insert(device_type("a", "example.com/a"), actor="alice")
        with pytest.raises(ValueError, match="kind"):
            await repo.update("a", 1, {"kind": "official"}, actor="bob")  # type: ignore[typeddict-unknown-key]


async def test_delete_returns_the_row_and_removes_it(database: Database) -> None:
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="alice")
    async with database.transaction() as session:
        deleted = await DeviceTypeRepository(session).delete("lpu")
    assert (deleted.id, deleted.resource_key, deleted.revision) == ("lpu", "hyperaccel.ai/lpu", 1)
    assert deleted.created_by == "alice"
    async with database.session() as session:
        assert await DeviceTypeRepository(session).get("lpu") is None
    # The key is free again.
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("lpu2", "hyperaccel.ai/lpu"), actor="alice")


async def test_delete_at_a_stale_revision_is_a_conflict_and_keeps_the_row(database: Database) -> None:
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        await repo.insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="alice")
        await repo.update("lpu", 1, {"enabled": False}, actor="alice")
    with pytest.raises(Conflict) as caught:
        async with database.transaction() as session:
            await DeviceTypeRepository(session).delete("lpu", expected_revision=1)
    assert caught.value.extra["current_revision"] == 2
    async with database.transaction() as session:
        deleted = await DeviceTypeRepository(session).delete("lpu", expected_revision=2)
    assert deleted.revision == 2


async def test_deleting_a_missing_device_type_is_not_found(database: Database) -> None:
    for expected in (None, 3):
        with pytest.raises(NotFound):
            async with database.transaction() as session:
                await DeviceTypeRepository(session).delete("ghost", expected_revision=expected)


async def test_a_row_read_earlier_in_the_session_does_not_hide_a_newer_one(database: Database) -> None:
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="alice")
    async with database.session() as reader:
        first = await DeviceTypeRepository(reader).get("lpu")
        assert first is not None and first.revision == 1
        await reader.rollback()  # end the read snapshot, as a new request would
        async with database.transaction() as session:
            await DeviceTypeRepository(session).update("lpu", 1, {"name": "renamed"}, actor="bob")
        again = await DeviceTypeRepository(reader).get("lpu")
    assert again is not None and (again.name, again.revision) == ("renamed", 2)


async def test_read_then_delete_then_audit_in_one_transaction(database: Database) -> None:
    async with database.transaction() as session:
        await DeviceTypeRepository(session).insert(device_type("lpu", "hyperaccel.ai/lpu"), actor="alice")
    async with database.transaction() as session:
        repo = DeviceTypeRepository(session)
        seen = await repo.get("lpu")
        assert seen is not None
        deleted = await repo.delete("lpu", expected_revision=seen.revision)
        assert await repo.get("lpu") is None
        # A new type may take the id and key in the same unit of work (e.g. a reset and re-create).
        await repo.insert(device_type("lpu", "hyperaccel.ai/lpu", name="again"), actor="bob")
    assert deleted.name == "Accelerator lpu"
    async with database.session() as session:
        again = await DeviceTypeRepository(session).get("lpu")
    assert again is not None and (again.name, again.created_by) == ("again", "bob")
