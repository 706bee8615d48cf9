"""Alembic environment for NuFi's schema.

NuFi passes its own connection in `config.attributes["connection"]` (see `nufi.db.migrate`). Run
through the `alembic` command instead (`alembic -c src/nufi/db/alembic.ini ...`, e.g. to write a new
revision with --autogenerate), it connects to `sqlalchemy.url` or else to NUFI_DATABASE_URL.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection

from nufi.config import load_settings
from nufi.db.engine import create_database_engine
from nufi.db.migrate import migration_lock
from nufi.db.tables import Base

config = context.config
target_metadata = Base.metadata


def _database_url() -> str:
    configured = config.get_main_option("sqlalchemy.url")
    return configured or load_settings().database_url.get_secret_value()


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_with_own_engine() -> None:
    engine = create_database_engine(_database_url())
    try:
        async with migration_lock(engine) as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


def _run_offline() -> None:
    context.configure(
        url=_database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    _run_offline()
else:
    given = config.attributes.get("connection")
    if isinstance(given, Connection):
        _run(given)
    else:
        asyncio.run(_run_with_own_engine())
