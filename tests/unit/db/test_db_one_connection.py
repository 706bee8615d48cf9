"""An in-memory database has one connection: sessions opened at once take turns on it instead of
starting a transaction inside each other's, and a task that holds one may open another."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from nufi.db import Database
from support.nufi_app import MEMORY_DATABASE


async def test_sessions_opened_at_once_take_turns_and_every_write_is_kept() -> None:
    db = Database.from_url(MEMORY_DATABASE)
    assert db.single_connection
    async with db.transaction() as session:
        await session.execute(text("CREATE TABLE kept (n INTEGER)"))

    async def read() -> int:
        async with db.session() as session:
            return int((await session.execute(text("SELECT count(*) FROM kept"))).scalar_one())

    async def write(n: int) -> None:
        async with db.transaction() as session:
            await session.execute(text("INSERT INTO kept VALUES (:n)"), {"n": n})
            await asyncio.sleep(0.02)  # others start here; on one connection they must wait

    try:
        # Interleaved, a reader closing its session would roll back the writer's transaction on the
        # shared connection, and the next writer would begin inside it.
        await asyncio.gather(write(1), read(), write(2), read(), write(3))
        assert await read() == 3
    finally:
        await db.close()


async def test_a_task_that_opens_a_session_inside_its_own_is_refused_at_once_not_left_waiting() -> None:
    db = Database.from_url(MEMORY_DATABASE)

    async def nested() -> None:
        async with db.session() as outer:
            await outer.execute(text("SELECT 1"))
            async with db.session() as inner:
                await inner.execute(text("SELECT 2"))

    try:
        # One connection cannot hold two transactions; waiting for its own turn would hang forever.
        with pytest.raises(OperationalError, match="within a transaction"):
            await asyncio.wait_for(nested(), timeout=10)
    finally:
        await db.close()
