"""SQLite connection set-up that lets several writers share one database file.

Out of the box, Python's sqlite3 starts transactions lazily, at the first write. A transaction that
reads first and writes later then has to upgrade its lock while another writer may hold it, and
SQLite answers "database is locked" at once instead of waiting. So SQLAlchemy takes over BEGIN:
transactions that announce they will write (`WRITE_INTENT`) start with `BEGIN IMMEDIATE`, which
takes the write lock up front and, with a busy timeout, queues writers behind each other. Readers
start a deferred transaction and, in WAL mode, never wait for writers.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import ConnectionPoolEntry

# Execution option naming a transaction that will write; see `nufi.db.session.transaction`.
WRITE_INTENT = "nufi_write_intent"
BUSY_TIMEOUT_MS = 5000


def install_sqlite_hooks(engine: Engine, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
    """Configure every new connection of `engine` and take over its BEGIN statements."""

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # None stops the driver from issuing BEGIN (and COMMIT before DDL) on its own.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            # WAL lets readers proceed while one writer commits; in-memory databases ignore it.
            cursor.execute("PRAGMA journal_mode = WAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        immediate = bool(connection.get_execution_options().get(WRITE_INTENT))
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
