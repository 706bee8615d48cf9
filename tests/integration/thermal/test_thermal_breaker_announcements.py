"""The circuit breaker's Events and audit records come once per change, whichever replica acts: a
replica that starts acting (at start, or taking over the Lease) reads what was last announced from the
audit log instead of announcing a breaker that already holds all over again.

Driven with breaker statuses directly (the breaker's decisions are the unit tests'), against the run's
dev cluster, where the Events are stored, and a database of the test's own."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nufi.cluster import ClusterGateway
from nufi.cluster.kube_rest import request_json
from nufi.config import Settings
from nufi.db import Database
from nufi.thermal.history.breaker_events import BreakerAnnouncements
from nufi.thermal.history.records import ThermalRecords
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.breaker import BreakerStatus
from nufi.thermal.protection.status import DeviceTypeStatus
from support.world import World


@pytest.fixture
async def gateway(world: World) -> AsyncIterator[ClusterGateway]:
    gateway = ClusterGateway.from_settings(Settings(kubeconfig=world.cluster.kubeconfig))
    try:
        yield gateway
    finally:
        await gateway.close()


@pytest.fixture
async def records(tmp_path: Path) -> AsyncIterator[ThermalRecords]:
    database = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}")
    try:
        await database.upgrade()
        yield ThermalRecords(database.sessions)
    finally:
        await database.close()


def _status(device_type: str, nodes: tuple[str, str], *, held: bool) -> DeviceTypeStatus:
    first, second = nodes
    breaker = BreakerStatus(
        total_nodes=2,
        allowed=1,
        affected=nodes if held else (first,),
        cut=(first,),
        waiting=(second,) if held else (),
    )
    return DeviceTypeStatus(device_type, ThermalPolicy(), (), None, breaker)


async def _announced(cluster: ClusterGateway, nodes: tuple[str, ...]) -> Counter[tuple[str, str, str]]:
    """How many breaker Events each (node, reason, replica) has on `nodes` (Events are stamped to the
    second, so their order is not known)."""
    listed = await request_json(cluster, "GET", "/api/v1/namespaces/default/events")
    return Counter(
        (e["involvedObject"]["name"], e["reason"], e["reportingInstance"])
        for e in listed["items"]
        if e["involvedObject"]["name"] in nodes
    )


async def test_a_breaker_already_held_is_not_announced_again_by_a_replica_that_starts_acting(
    gateway: ClusterGateway, records: ThermalRecords
) -> None:
    tag = uuid.uuid4().hex[:8]
    device_type, nodes = f"lpu-{tag}", (f"n1-{tag}", f"n2-{tag}")
    held, released = _status(device_type, nodes, held=True), _status(device_type, nodes, held=False)
    first, second = (BreakerAnnouncements(gateway, records, name) for name in ("replica-a", "replica-b"))

    await first.announce([held])
    await first.announce([held])
    held_by_a = (nodes[1], "ProtectionBreakerHeld", "replica-a")
    assert await _announced(gateway, nodes) == Counter([held_by_a])

    # replica-b takes over while the breaker still holds: it knows from the audit log, and says nothing.
    first.stop_acting()
    await second.announce([held])
    assert await _announced(gateway, nodes) == Counter([held_by_a])
    await second.announce([released])
    released_by_b = (nodes[1], "ProtectionBreakerReleased", "replica-b")
    assert await _announced(gateway, nodes) == Counter([held_by_a, released_by_b])

    # replica-a acts again: what it announced itself is no longer the last word.
    second.stop_acting()
    await first.announce([released])
    assert await _announced(gateway, nodes) == Counter([held_by_a, released_by_b])
    await first.announce([held])
    assert await _announced(gateway, nodes) == Counter([held_by_a, released_by_b, held_by_a])


async def test_without_a_readable_audit_log_a_holding_breaker_is_announced_again_not_lost(
    gateway: ClusterGateway, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex[:8]
    device_type, nodes = f"lpu-{tag}", (f"n1-{tag}", f"n2-{tag}")
    # A database never migrated: the audit log cannot be read (nor written).
    database = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}")
    try:
        announcements = BreakerAnnouncements(gateway, ThermalRecords(database.sessions), "replica-a")
        await announcements.announce([_status(device_type, nodes, held=True)])
    finally:
        await database.close()
    assert await _announced(gateway, nodes) == Counter([(nodes[1], "ProtectionBreakerHeld", "replica-a")])
