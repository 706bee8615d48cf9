"""The Add Device wizard's drafts below the page: the store over a migrated database (whose drafts,
whose id, which are forgotten) and the migration that adds their table, up and down."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Connection, inspect

from nufi.auth import Principal
from nufi.db import Database, head_revision, migration_lock
from nufi.db.migrate import alembic_config
from nufi.db.wizard_drafts import WizardDraftStore
from nufi.devices.drafts import DRAFT_LIFETIME, MAX_DRAFT_CHARS, WizardDrafts
from nufi.errors import Forbidden, Unauthorized, ValidationFailed

ADMIN = Principal(subject="s-admin", username="admin", roles=frozenset({"nufi-admin"}))
OTHER = Principal(subject="s-other", username="other", roles=frozenset({"nufi-admin"}))
USER = Principal(subject="s-user", username="user", roles=frozenset())


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    db = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}")
    try:
        await db.upgrade()
        yield db
    finally:
        await db.close()


async def test_a_draft_is_found_by_its_id_and_owner_only(database: Database) -> None:
    drafts = WizardDrafts(WizardDraftStore(database.sessions))
    mine = await drafts.create(ADMIN, {"name": "NPU"})
    assert len(mine) >= 20 and mine.replace("-", "").replace("_", "").isalnum()  # URL-safe, random
    assert await drafts.get(ADMIN, mine) == {"name": "NPU"}
    assert await drafts.get(OTHER, mine) is None
    assert await drafts.save(OTHER, mine, {"name": "taken over"}) is False
    await drafts.delete(OTHER, mine)
    assert await drafts.get(ADMIN, mine) == {"name": "NPU"}

    assert await drafts.save(ADMIN, mine, {"name": "NPU 2", "labels.node": "node"}) is True
    assert await drafts.get(ADMIN, mine) == {"name": "NPU 2", "labels.node": "node"}
    await drafts.delete(ADMIN, mine)
    assert await drafts.get(ADMIN, mine) is None
    assert await drafts.save(ADMIN, mine, {"name": "again"}) is False  # a save does not bring it back


async def test_only_admins_have_drafts(database: Database) -> None:
    drafts = WizardDrafts(WizardDraftStore(database.sessions))
    with pytest.raises(Forbidden):
        await drafts.create(USER, {})
    with pytest.raises(Unauthorized):
        await drafts.get(None, "x")


async def test_drafts_untouched_for_a_week_are_forgotten(database: Database) -> None:
    clock = Clock()
    drafts = WizardDrafts(WizardDraftStore(database.sessions), clock=clock)
    old = await drafts.create(ADMIN, {"name": "old"})
    kept = await drafts.create(OTHER, {"name": "kept"})
    clock.now += DRAFT_LIFETIME / 2
    assert await drafts.save(OTHER, kept, {"name": "kept, touched"})
    clock.now += DRAFT_LIFETIME / 2 + timedelta(seconds=1)
    assert await drafts.get(ADMIN, old) is None  # expired, though its row is still there
    await drafts.create(ADMIN, {"name": "new"})  # the sweep
    assert await WizardDraftStore(database.sessions).get(old, ADMIN.subject) is None
    assert await drafts.get(OTHER, kept) == {"name": "kept, touched"}


async def test_an_implausibly_large_draft_is_refused(database: Database) -> None:
    drafts = WizardDrafts(WizardDraftStore(database.sessions))
    draft = await drafts.create(ADMIN, {})
    with pytest.raises(ValidationFailed):
        await drafts.save(ADMIN, draft, {"metrics.utilization": "x" * MAX_DRAFT_CHARS})
    assert await drafts.get(ADMIN, draft) == {}


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def _migrate(database: Database, direction: str, revision: str) -> None:
    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        getattr(command, direction)(config, revision)

    async with migration_lock(database.engine) as connection:
        await connection.run_sync(run)


async def test_the_drafts_migration_downgrades_and_upgrades_again(database: Database) -> None:
    drafts = WizardDrafts(WizardDraftStore(database.sessions))
    await drafts.create(ADMIN, {"name": "NPU"})

    await _migrate(database, "downgrade", "0002")
    assert await database.current_revision() == "0002"
    async with database.engine.connect() as connection:
        tables = await connection.run_sync(_tables)
    assert "wizard_drafts" not in tables and "web_sessions" in tables

    await database.upgrade()
    assert await database.current_revision() == head_revision()
    async with database.engine.connect() as connection:
        assert "wizard_drafts" in await connection.run_sync(_tables)
    draft = await drafts.create(ADMIN, {"name": "again"})
    assert await drafts.get(ADMIN, draft) == {"name": "again"}
