"""Sessions and the unit of work.

Repositories never commit: a caller groups its writes (a device type and its audit record, say) in
one `transaction()`, so they are stored together or not at all.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from nufi.db.sqlite import WRITE_INTENT

SessionFactory = async_sessionmaker[AsyncSession]


def create_session_factory(engine: AsyncEngine) -> SessionFactory:
    # Rows handed back by a repository stay readable after the commit, without a lazy reload
    # (which asyncio cannot do implicitly).
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)


@asynccontextmanager
async def transaction(sessions: SessionFactory) -> AsyncIterator[AsyncSession]:
    """A session inside one write transaction: committed when the block ends, rolled back if it raises.

    The transaction announces up front that it will write, so on SQLite it queues behind other
    writers rather than failing with "database is locked".
    """
    async with sessions() as session, session.begin():
        await session.connection(execution_options={WRITE_INTENT: True})
        yield session
