"""Readiness check for the database."""

from __future__ import annotations

from time import perf_counter

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from nufi.db.engine import display_url
from nufi.db.failures import DATABASE, describe_database_error
from nufi.errors import DependencyUnavailable
from nufi.health import DependencyStatus, elapsed_ms


class DatabaseCheck:
    """Runs `SELECT 1` on a pooled connection: proves the database is reachable and accepts us."""

    name = DATABASE
    # The database always has a URL (SQLite by default), so it always counts towards readiness.
    configured = True

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def check(self) -> DependencyStatus:
        where = display_url(self._engine.url)
        started = perf_counter()
        ok, detail = True, f"the database at {where} answered SELECT 1"
        try:
            async with self._engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except (SQLAlchemyError, OSError, DependencyUnavailable) as exc:
            ok, detail = False, f"cannot query the database at {where}: {describe_database_error(exc)}"
        return DependencyStatus(
            name=self.name, ok=ok, configured=True, detail=detail, latency_ms=elapsed_ms(started)
        )
