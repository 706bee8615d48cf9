"""Intents on SQLite and PostgreSQL: committed before the change, settled exactly once.

Two replicas may settle the same intent at once (each runs the reconciler); the audit record must be
written once, whichever wins."""

from __future__ import annotations

import asyncio

from nufi.db import AuditRepository, Database
from nufi.db.intents import Intent, IntentStore
from nufi.db.types import utc_now
from nufi.workloads.intents import Outcome, Recorder
from nufi.workloads.reconcile import Reconciler
from support.polling import until


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


async def test_only_the_intents_of_a_replica_whose_lease_ran_out_settle_before_their_age(
    database: Database,
) -> None:
    """Four writers: one shut down (lease released), one whose lease ran out, one alive, and one that
    never took a lease. A pass with an age limit of an hour settles the first two at once."""
    store = IntentStore(database.sessions)
    await store.leases.renew("stopped", 60)
    await store.leases.release("stopped")
    await store.leases.renew("lapsed", 0)
    await store.leases.renew("alive", 60)
    for holder in ("stopped", "lapsed", "alive", "unknown"):
        await store.open(
            actor="admin", action="project.create", target_kind="project", target_id=holder, holder=holder
        )
    recorder = Recorder(store, holder="this-replica")

    async def finished(intent: Intent) -> Outcome:
        return Outcome.complete()

    recorder.register("project", finished)
    reconciler = Reconciler(recorder, settle_after_seconds=3600, interval_seconds=3600, lease_seconds=60)
    assert await reconciler.run_once() == 2
    assert sorted(i.target_id for i in await store.open_intents()) == ["alive", "unknown"]
    async with database.session() as session:
        assert [r.target_id for r in await AuditRepository(session).list(target_kind="project")] in (
            ["lapsed", "stopped"],
            ["stopped", "lapsed"],
        )
    # An age limit of none settles the rest, whatever their leases say.
    old_enough = Reconciler(recorder, settle_after_seconds=0, interval_seconds=3600, lease_seconds=60)
    assert await old_enough.run_once() == 2
    assert await store.open_intents() == []


async def test_a_lease_is_renewed_in_place_and_released(database: Database) -> None:
    leases = IntentStore(database.sessions).leases
    await leases.renew("r", 1)
    first = (await leases.expiries(["r", "other"]))["r"]
    await leases.renew("r", 600)
    renewed = await leases.expiries(["r", "other"])
    assert list(renewed) == ["r"] and renewed["r"] > first
    await leases.release("r")
    assert (await leases.expiries(["r"]))["r"] < renewed["r"]


async def test_the_next_pass_comes_when_a_waiting_writers_lease_runs_out(database: Database) -> None:
    """The pass after the first is an hour away, but an intent waits for a lease that runs out in a
    second: the reconciler looks again then, not an hour later."""
    store = IntentStore(database.sessions)
    await store.leases.renew("lapsing", 1)
    await store.open(
        actor="admin", action="project.create", target_kind="project", target_id="p", holder="lapsing"
    )
    recorder = Recorder(store, holder="this-replica")

    async def finished(intent: Intent) -> Outcome:
        return Outcome.complete()

    recorder.register("project", finished)
    reconciler = Reconciler(recorder, settle_after_seconds=3600, interval_seconds=3600, lease_seconds=60)
    reconciler.start()
    try:

        async def none_open() -> bool:
            return await store.open_intents() == []

        await until(none_open, within=30, every=0.1, what="the lapsed writer's intent settled")
    finally:
        await reconciler.close()
    # Shut down, this replica's own lease has ended: another replica would settle what it left at once.
    assert (await store.leases.expiries(["this-replica"]))["this-replica"] <= utc_now()
