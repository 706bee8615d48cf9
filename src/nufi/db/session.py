"""Sessions and the unit of work.

Repositories never commit: a caller groups its writes (a device type and its audit record, say) in
one `transaction()`, so they are stored together or not at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.pool import StaticPool

from nufi.db.sqlite import WRITE_INTENT


class SessionFactory(Protocol):
    """Opens a session: `async with sessions() as session:`."""

    def __call__(self) -> AbstractAsyncContextManager[AsyncSession]: ...


class _OneAtATime:
    """Sessions of a database with one connection (in-memory SQLite), taken in turn: two open at
    once would start a transaction within the other's. A task that holds one and opens another is
    not made to wait for itself: it gets the connection's own refusal at once."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._turn = asyncio.Lock()
        self._holder: asyncio.Task[object] | None = None

    @asynccontextmanager
    async def __call__(self) -> AsyncIterator[AsyncSession]:
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            async with self._sessions() as session:
                yield session
            return
        async with self._turn:
            self._holder = task
            try:
                async with self._sessions() as session:
                    yield session
            finally:
                self._holder = None


def create_session_factory(engine: AsyncEngine) -> SessionFactory:
    # Rows handed back by a repository stay readable after the commit, without a lazy reload
    # (which asyncio cannot do implicitly).
    sessions = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
    return _OneAtATime(sessions) if isinstance(engine.pool, StaticPool) else sessions


@asynccontextmanager
async def transaction(sessions: SessionFactory) -> AsyncIterator[AsyncSession]:
    """A session inside one write transaction: committed when the block ends, rolled back if it raises.

    The transaction announces up front that it will write, so on SQLite it queues behind other
    writers rather than failing with "database is locked".
    """
    async with sessions() as session, session.begin():
        await session.connection(execution_options={WRITE_INTENT: True})
        yield session
