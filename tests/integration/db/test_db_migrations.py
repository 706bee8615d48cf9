"""Migrations on an empty database, their agreement with the models, and the migration lock."""

from __future__ import annotations

import asyncio

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, TextClause, inspect, make_url, text
from sqlalchemy.ext.asyncio import AsyncConnection

from nufi.db import Base, Database, head_revision, migration_lock
from nufi.errors import DependencyUnavailable
from support.polling import stays_true, until

# SQLAlchemy warns about session misuse (e.g. stale identities) instead of failing; here it fails.
pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")


async def _scalar(connection: AsyncConnection, query: TextClause) -> object:
    return await connection.scalar(query)


def schema_of(connection: Connection) -> dict[str, object]:
    inspector = inspect(connection)
    tables = set(inspector.get_table_names())
    return {
        "tables": tables,
        "device_type_columns": {c["name"] for c in inspector.get_columns("device_types")}
        if "device_types" in tables
        else set(),
        "device_type_unique": inspector.get_unique_constraints("device_types")
        if "device_types" in tables
        else [],
        "audit_indexes": {i["name"]: tuple(i["column_names"]) for i in inspector.get_indexes("audit_log")}
        if "audit_log" in tables
        else {},
    }


async def test_upgrade_creates_the_schema_on_an_empty_database(database_url: str) -> None:
    db = Database.from_url(database_url)
    try:
        assert await db.current_revision() is None
        async with db.engine.connect() as connection:
            assert (await connection.run_sync(schema_of))["tables"] == set()
        await db.upgrade()
        async with db.engine.connect() as connection:
            schema = await connection.run_sync(schema_of)
        assert await db.current_revision() == head_revision()
    finally:
        await db.close()
    assert {"device_types", "audit_log", "alembic_version"} <= schema["tables"]  # type: ignore[operator]
    assert schema["device_type_columns"] == {
        "id", "name", "vendor", "kind", "enabled", "resource_key", "labels", "metrics", "thermal", "fetcher",
        "revision", "created_at", "updated_at", "created_by", "updated_by",
    }  # fmt: skip
    assert [
        (u["name"], u["column_names"])
        for u in schema["device_type_unique"]  # type: ignore[attr-defined]
    ] == [("uq_device_types_resource_key", ["resource_key"])]
    assert schema["audit_indexes"] == {
        "ix_audit_log_at": ("at",),
        "ix_audit_log_target": ("target_kind", "target_id"),
    }


async def test_upgrading_twice_changes_nothing(database: Database) -> None:
    await database.upgrade()
    assert await database.current_revision() == head_revision()


async def test_the_models_match_the_migrated_schema(database: Database) -> None:
    def differences(connection: Connection) -> list[object]:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, Base.metadata))

    async with database.engine.connect() as connection:
        assert await connection.run_sync(differences) == []


async def test_replicas_starting_together_migrate_once(database_url: str) -> None:
    replicas = [Database.from_url(database_url) for _ in range(4)]
    try:
        await asyncio.gather(*(db.upgrade() for db in replicas))
        revisions = {await db.current_revision() for db in replicas}
    finally:
        for db in replicas:
            await db.close()
    assert revisions == {head_revision()}


async def test_an_upgrade_waits_while_another_replica_holds_the_migration_lock(database_url: str) -> None:
    other_replica, this_replica = Database.from_url(database_url), Database.from_url(database_url)
    try:
        async with migration_lock(other_replica.engine) as holder:
            upgrade = asyncio.create_task(this_replica.upgrade())
            if holder.dialect.name == "postgresql":
                # The server shows the upgrade queued behind the held advisory lock.
                waiting = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                await until(lambda: _scalar(holder, waiting), within=10)
            # SQLite has no such view: the upgrade must simply not finish while the lock is held.
            await stays_true(lambda: not upgrade.done(), for_seconds=0.5)
        await asyncio.wait_for(upgrade, timeout=10)
        assert await this_replica.current_revision() == head_revision()
    finally:
        await other_replica.close()
        await this_replica.close()


async def test_an_unreachable_database_is_reported_without_its_password(
    database_url: str, unused_tcp_port: int
) -> None:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        # A directory that does not exist cannot hold the file.
        target = url.set(database="/nonexistent-dir/for/nufi/nufi.db")
    else:
        target = url.set(port=unused_tcp_port, password="hunter2-secret")
    db = Database.from_url(target.render_as_string(hide_password=False))
    try:
        with pytest.raises(DependencyUnavailable) as caught:
            await db.upgrade()
        status = await db.check.check()
    finally:
        await db.close()
    assert caught.value.dependency == "database"
    assert "NUFI_DATABASE_URL" in caught.value.detail
    assert "hunter2-secret" not in caught.value.detail
    assert (status.name, status.ok, status.configured) == ("database", False, True)
    assert "hunter2-secret" not in status.detail
    assert target.render_as_string(hide_password=True) in status.detail
