"""Every database test runs twice: on a SQLite file and on the real PostgreSQL of the test run.

Each test gets a database of its own (a fresh file, or a fresh PostgreSQL database dropped after).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from nufi.db import Database
from support.databases import BACKENDS, empty_database_url


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database on each backend."""
    yield from empty_database_url(request, tmp_path)


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """A migrated database, closed after the test."""
    db = Database.from_url(database_url)
    try:
        await db.upgrade()
        yield db
    finally:
        await db.close()
