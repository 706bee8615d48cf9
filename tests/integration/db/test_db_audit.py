"""AuditRepository on SQLite and PostgreSQL: records, filters, paging, newest first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from nufi.db import AuditRepository, Database
from nufi.db.audit import ACTIONS
from nufi.db.intents import IntentStore

# SQLAlchemy warns about session misuse (e.g. stale identities) instead of failing; here it fails.
pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")


async def seed(database: Database) -> None:
    """Six records over three targets and two actors, committed one by one (so in time order)."""
    entries = [
        ("alice", "device_type.create", "device_type", "lpu"),
        ("alice", "device_type.update", "device_type", "lpu"),
        ("bob", "device_type.create", "device_type", "npu"),
        ("bob", "device_type.reset", "device_type", "nvidia-gpu"),
        ("alice", "device_type.delete", "device_type", "lpu"),
        ("bob", "thermal_policy.update", "thermal_policy", "lpu"),
    ]
    for actor, action, kind, target in entries:
        async with database.transaction() as session:
            await AuditRepository(session).record(actor, action, kind, target)


async def test_a_record_keeps_every_field(database: Database) -> None:
    before_write = datetime.now(UTC)
    async with database.transaction() as session:
        recorded = await AuditRepository(session).record(
            "alice",
            "device_type.update",
            "device_type",
            "lpu",
            before={"enabled": True, "labels": {"node": "node"}},
            after={"enabled": False, "labels": {"node": "instance"}},
            details={"force": True, "reason": "no node advertises hyperaccel.ai/lpu yet"},
        )
    assert recorded is not None and recorded.id is not None
    async with database.session() as session:
        (stored,) = await AuditRepository(session).list()
    assert (stored.id, stored.actor, stored.action, stored.target_kind, stored.target_id) == (
        recorded.id,
        "alice",
        "device_type.update",
        "device_type",
        "lpu",
    )
    assert stored.before == {"enabled": True, "labels": {"node": "node"}}
    assert stored.after == {"enabled": False, "labels": {"node": "instance"}}
    assert stored.details == {"force": True, "reason": "no node advertises hyperaccel.ai/lpu yet"}
    assert stored.at.utcoffset() == timedelta(0)
    assert before_write - timedelta(seconds=1) <= stored.at <= datetime.now(UTC) + timedelta(seconds=1)


async def test_absent_states_stay_absent(database: Database) -> None:
    async with database.transaction() as session:
        await AuditRepository(session).record("alice", "device_type.create", "device_type", "lpu")
    async with database.session() as session:
        (stored,) = await AuditRepository(session).list()
    assert (stored.before, stored.after, stored.details) == (None, None, None)


async def test_list_is_newest_first_and_pages(database: Database) -> None:
    await seed(database)
    async with database.session() as session:
        audit = AuditRepository(session)
        everything = await audit.list()
        first = await audit.list(limit=2)
        second = await audit.list(limit=2, offset=2)
        beyond = await audit.list(limit=2, offset=6)
        total = await audit.count()
    ids = [r.id for r in everything]
    assert ids == sorted(ids, reverse=True)
    assert [r.action for r in everything][:2] == ["thermal_policy.update", "device_type.delete"]
    assert [r.id for r in [*first, *second]] == ids[:4]
    assert beyond == []
    assert total == 6


async def test_filters_combine(database: Database) -> None:
    await seed(database)
    async with database.session() as session:
        audit = AuditRepository(session)
        lpu = await audit.list(target_kind="device_type", target_id="lpu")
        by_bob = await audit.list(actor="bob")
        bob_on_devices = await audit.list(actor="bob", target_kind="device_type")
        policies = await audit.count(target_kind="thermal_policy")
        nobody = await audit.list(actor="mallory")
    assert [r.action for r in lpu] == ["device_type.delete", "device_type.update", "device_type.create"]
    assert {r.actor for r in by_bob} == {"bob"} and len(by_bob) == 3
    assert [r.target_id for r in bob_on_devices] == ["nvidia-gpu", "npu"]
    assert policies == 1
    assert nobody == []


async def test_pages_out_of_range_are_refused(database: Database) -> None:
    async with database.session() as session:
        audit = AuditRepository(session)
        with pytest.raises(ValueError, match="limit"):
            await audit.list(limit=0)
        with pytest.raises(ValueError, match="offset"):
            await audit.list(offset=-1)


async def test_the_newest_record_per_target_of_an_actor_s_actions(database: Database) -> None:
    entries = [
        ("nufi-thermal", "protection.breaker_held", "lpu", ["a"]),
        ("nufi-thermal", "protection.breaker_released", "lpu", []),
        ("nufi-thermal", "protection.breaker_held", "rngd", ["b"]),
        # Another actor's record, another action and another kind of target are not the answer.
        ("alice", "protection.breaker_held", "lpu", ["x"]),
        ("nufi-thermal", "thermal_policy.update", "rngd", ["y"]),
    ]
    for actor, action, target, held in entries:
        async with database.transaction() as session:
            await AuditRepository(session).record(
                actor, action, "thermal_policy", target, after={"held": held}
            )
    async with database.transaction() as session:
        await AuditRepository(session).record("nufi-thermal", "protection.breaker_held", "device_type", "lpu")
    async with database.session() as session:
        newest = await AuditRepository(session).latest_per_target(
            target_kind="thermal_policy",
            actor="nufi-thermal",
            actions=("protection.breaker_held", "protection.breaker_released"),
        )
    assert {target: (row.action, row.after) for target, row in newest.items()} == {
        "lpu": ("protection.breaker_released", {"held": []}),
        "rngd": ("protection.breaker_held", {"held": ["b"]}),
    }


async def test_an_action_the_audit_log_does_not_list_is_refused_before_anything_is_written(
    database: Database,
) -> None:
    async with database.transaction() as session:
        with pytest.raises(ValueError, match=r"'project\.rename' is not an audited action"):
            await AuditRepository(session).record("alice", "project.rename", "project", "team-a")
    with pytest.raises(ValueError, match="not an audited action"):
        await IntentStore(database.sessions).open(
            actor="alice", action="project.rename", target_kind="project", target_id="team-a", holder="r1"
        )
    assert not await IntentStore(database.sessions).open_intents()
    async with database.session() as session:
        assert await AuditRepository(session).count() == 0


async def test_a_save_that_changed_nothing_but_bookkeeping_is_not_recorded(database: Database) -> None:
    policy = {"enabled": True, "unhealthy": {"enabled": False, "trip_hold_seconds": 0}}
    async with database.transaction() as session:
        audit = AuditRepository(session)
        # The thermal service's and the catalog's records: where the old state came from, its revision.
        unchanged = await audit.record(
            "alice",
            "thermal_policy.update",
            "thermal_policy",
            "lpu",
            before=policy | {"source": "admin"},
            after=policy,
        )
        bumped = await audit.record(
            "alice", "device_type.update", "device_type", "lpu", before={"revision": 1}, after={"revision": 2}
        )
        changed = await audit.record(
            "alice",
            "thermal_policy.update",
            "thermal_policy",
            "lpu",
            before=policy,
            after=policy | {"unhealthy": {"enabled": True, "trip_hold_seconds": 0}},
        )
        # A creation, a removal and an event without states are records whatever they hold.
        made = await audit.record("alice", "project.create", "project", "team-a", after={})
    assert (unchanged, bumped) == (None, None)
    assert changed is not None and made is not None
    async with database.session() as session:
        assert [row.id for row in await AuditRepository(session).list()] == [made.id, changed.id]


def test_every_action_is_one_of_a_kind() -> None:
    assert len(set(ACTIONS)) == len(ACTIONS)
