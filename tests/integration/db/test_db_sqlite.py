"""What every SQLite connection is set up with: WAL, foreign keys, a busy timeout, our own BEGIN."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from nufi.db import Database
from nufi.db.sqlite import BUSY_TIMEOUT_MS

# SQLAlchemy warns about session misuse (e.g. stale identities) instead of failing; here it fails.
pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")


async def test_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    db = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}")
    try:
        async with db.engine.connect() as connection:
            journal = (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar_one()
            foreign_keys = (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar_one()
            busy = (await connection.exec_driver_sql("PRAGMA busy_timeout")).scalar_one()
    finally:
        await db.close()
    assert (journal, foreign_keys, busy) == ("wal", 1, BUSY_TIMEOUT_MS)


def try_to_write(path: Path) -> None:
    """Start a write transaction from a plain sqlite3 connection that does not wait for the lock."""
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    finally:
        other.close()


async def test_a_write_transaction_holds_the_write_lock_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "nufi.db"
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.transaction() as session:
            # Nothing written yet, and still the lock is held: writers queue at BEGIN.
            await session.execute(text("SELECT 1"))
            with pytest.raises(sqlite3.OperationalError, match="database is locked"):
                try_to_write(path)
        try_to_write(path)
    finally:
        await db.close()


async def test_reading_sessions_do_not_take_the_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "nufi.db"
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.session() as reader:
            await reader.execute(text("SELECT 1"))
            try_to_write(path)
    finally:
        await db.close()
