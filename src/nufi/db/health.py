"""Readiness check for the database."""

from __future__ import annotations

from time import perf_counter

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from nufi.db.engine import display_url
from nufi.health import DependencyStatus, elapsed_ms

DATABASE = "database"


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
        try:
            async with self._engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except (SQLAlchemyError, OSError) as exc:
            return DependencyStatus(
                name=self.name,
                ok=False,
                configured=True,
                detail=f"cannot query the database at {where}: {describe_database_error(exc)}",
                latency_ms=elapsed_ms(started),
            )
        return DependencyStatus(
            name=self.name,
            ok=True,
            configured=True,
            detail=f"the database at {where} answered SELECT 1",
            latency_ms=elapsed_ms(started),
        )


def describe_database_error(error: BaseException) -> str:
    """The driver's own words, without SQLAlchemy's statement echo and documentation link."""
    cause: BaseException = error.orig if isinstance(error, DBAPIError) and error.orig else error
    message = str(cause).strip() or "no message"
    return f"{type(cause).__name__}: {message}"
