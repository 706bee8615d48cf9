"""The database as the server holds it: one engine, its sessions, migrations and readiness."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.pool import StaticPool

from nufi.config import Settings
from nufi.db.engine import create_database_engine, display_url
from nufi.db.health import DatabaseCheck
from nufi.db.migrate import current_revision, upgrade_database
from nufi.db.session import SessionFactory, create_session_factory, transaction


class Database:
    """Owns an engine; `close()` releases its connections.

    Reads use `session()`; writes use `transaction()`, whose block commits as a whole or not at all.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessions: SessionFactory = create_session_factory(engine)
        self.check = DatabaseCheck(engine)

    @classmethod
    def from_url(cls, url: str, **engine_options: Any) -> Database:
        return cls(create_database_engine(url, **engine_options))

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        return cls.from_url(settings.database_url.get_secret_value())

    @property
    def url(self) -> str:
        """The database URL with any password masked."""
        return display_url(self.engine.url)

    @property
    def single_connection(self) -> bool:
        """True for an in-memory SQLite database: one connection shared by every session, which
        therefore take turns (`nufi.db.session`); background loops are not started beside requests."""
        return isinstance(self.engine.pool, StaticPool)

    def session(self) -> AbstractAsyncContextManager[AsyncSession]:
        """A session for reading (use it as `async with`); it writes nothing unless you commit."""
        return self.sessions()

    def transaction(self) -> AbstractAsyncContextManager[AsyncSession]:
        """`async with db.transaction() as session:` one unit of work, committed when the block ends."""
        return transaction(self.sessions)

    async def upgrade(self, revision: str = "head") -> None:
        await upgrade_database(self.engine, revision)

    async def current_revision(self) -> str | None:
        return await current_revision(self.engine)

    async def close(self) -> None:
        await self.engine.dispose()
