"""Schema migrations (Alembic), run from code: at server start and by `nufi db upgrade`.

The scripts live in `migrations/` inside this package, so an installed NuFi carries them and needs no
alembic.ini. The whole upgrade runs in one transaction, guarded so that replicas starting together
do not migrate twice: PostgreSQL takes an advisory lock, SQLite's `BEGIN IMMEDIATE` queues writers.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nufi.db.engine import display_url
from nufi.db.failures import DATABASE, describe_database_error
from nufi.db.sqlite import WRITE_INTENT
from nufi.errors import DependencyUnavailable, NufiError

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# Arbitrary, fixed: every NuFi replica must pick the same key for the migration lock.
_MIGRATION_LOCK_KEY = 0x4E75466944420001
# Alembic publishes the running migration through module-level globals, so two upgrades in one
# process must not overlap even when the database would let them.
_in_process_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def alembic_config() -> Config:
    """Alembic configuration pointing at NuFi's migration scripts."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    """The newest revision the scripts define."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"no migration scripts found in {MIGRATIONS_DIR}")
    return head


@asynccontextmanager
async def migration_lock(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection in a transaction that holds the database-wide migration lock until the block ends.

    Every replica's upgrade runs under this lock, so they take turns instead of racing to create the
    same tables.
    """
    async with engine.connect() as connection:
        await connection.execution_options(**{WRITE_INTENT: True})
        async with connection.begin():
            if connection.dialect.name == "postgresql":
                await connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK_KEY}
                )
            yield connection


async def upgrade_database(engine: AsyncEngine, revision: str = "head") -> None:
    """Bring the schema up to `revision` (the newest by default); a no-op when it is there already.

    Raises DependencyUnavailable when the database cannot be reached.
    """
    loop = asyncio.get_running_loop()
    lock = _in_process_locks.setdefault(loop, asyncio.Lock())
    try:
        async with lock, migration_lock(engine) as connection:
            await connection.run_sync(_upgrade, revision)
    except (DBAPIError, OSError, DependencyUnavailable) as exc:
        raise DependencyUnavailable(
            code="db.migrate_failed", params=_failure(engine, exc), dependency=DATABASE
        ) from exc
    except CommandError as exc:
        # Typically a revision this NuFi does not know: a wrong --revision, or a database that a
        # newer NuFi has already migrated.
        raise NufiError(
            code="db.revision_unknown",
            params={**_failure(engine, exc), "revision": revision, "head": head_revision()},
            dependency=DATABASE,
        ) from exc


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at, or None when it has never been migrated."""
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_current)
    except (DBAPIError, OSError, DependencyUnavailable) as exc:
        raise DependencyUnavailable(
            code="db.revision_unreadable", params=_failure(engine, exc), dependency=DATABASE
        ) from exc


def _upgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    # env.py runs the migrations on this connection, inside the transaction opened above.
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def _failure(engine: AsyncEngine, error: BaseException) -> dict[str, object]:
    """Which database (its password hidden) and what went wrong, as a failure's params."""
    if isinstance(error, CommandError):
        return {"url": display_url(engine.url), "error": str(error)}
    return {"url": display_url(engine.url), "error": describe_database_error(error)}
