"""Every database test runs twice: on a SQLite file and on the real PostgreSQL of the test run.

Each test gets a database of its own (`database_url`, from tests/conftest.py: a fresh file, or a fresh
PostgreSQL database dropped after).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from nufi.db import Database


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """A migrated database, closed after the test."""
    db = Database.from_url(database_url)
    try:
        await db.upgrade()
        yield db
    finally:
        await db.close()
