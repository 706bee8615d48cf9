"""Every database test runs twice: on a SQLite file and on the real PostgreSQL of the test run.

Each test gets a database of its own (a fresh file, or a fresh PostgreSQL database dropped after).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import make_url

from nufi.db import Database

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"
        return
    postgres = request.getfixturevalue("postgres")
    name = f"nufi_{uuid.uuid4().hex[:16]}"
    postgres.psql(f"CREATE DATABASE {name}")
    try:
        yield make_url(postgres.sqlalchemy_url).set(database=name).render_as_string(hide_password=False)
    finally:
        postgres.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """A migrated database, closed after the test."""
    db = Database.from_url(database_url)
    try:
        await db.upgrade()
        yield db
    finally:
        await db.close()
