"""Intents on SQLite and PostgreSQL: committed before the change, settled exactly once.

Two replicas may settle the same intent at once (each runs the reconciler); the audit record must be
written once, whichever wins."""

from __future__ import annotations

import asyncio

from nufi.db import AuditRepository, Database
from nufi.db.intents import IntentStore


async def test_an_intent_is_committed_before_the_change_and_becomes_its_audit_record(
    database: Database, database_url: str
) -> None:
    store = IntentStore(database.sessions)
    intent = await store.open(
        actor="user",
        action="lab.create",
        target_kind="lab",
        target_id="p/lab",
        holder="replica-1",
        after={"name": "lab"},
    )
    # Visible to another connection (another replica) at once: it is committed.
    other = Database.from_url(database_url)
    try:
        assert [i.id for i in await IntentStore(other.sessions).open_intents()] == [intent.id]
    finally:
        await other.close()
    assert await store.complete(intent, after={"name": "lab", "backend": "statefulset"})
    assert await store.open_intents() == []
    async with database.session() as session:
        records = await AuditRepository(session).list(target_kind="lab")
    assert [(r.actor, r.action, r.target_id, r.after) for r in records] == [
        ("user", "lab.create", "p/lab", {"name": "lab", "backend": "statefulset"})
    ]


async def test_two_replicas_settling_one_intent_write_one_record(database: Database) -> None:
    store = IntentStore(database.sessions)
    for round_ in range(5):
        intent = await store.open(
            actor="admin", action="project.create", target_kind="project", target_id=f"p{round_}", holder="r"
        )
        results = await asyncio.gather(*(store.complete(intent) for _ in range(4)))
        assert sorted(results) == [False, False, False, True]
        async with database.session() as session:
            assert await AuditRepository(session).count(target_id=f"p{round_}") == 1


async def test_an_abandoned_intent_leaves_no_record(database: Database) -> None:
    store = IntentStore(database.sessions)
    intent = await store.open(
        actor="admin", action="project.delete", target_kind="project", target_id="p", holder="r"
    )
    assert await store.abandon(intent)
    assert not await store.complete(intent)
    async with database.session() as session:
        assert await AuditRepository(session).count() == 0
