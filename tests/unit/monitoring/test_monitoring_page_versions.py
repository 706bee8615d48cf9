"""What a read that does not wait relies on: the version a type's page would be served at right now,
known only while the type's catalog lookup is recent and untouched by an edit, and the audience a
reader's masking puts them in."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from nufi.auth import Principal
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.devices.spec import DeviceType
from nufi.errors import DependencyUnavailable
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshots import lookups
from nufi.monitoring.snapshots.audience import SEES_ALL, SEES_NONE
from nufi.monitoring.snapshots.paging import PageQuery
from support.polling import until

from .test_monitoring_service import ME, Prometheus, lpu

ADMIN = Principal(subject="a", username="admin", roles=frozenset({"nufi-admin"}))
ALICE = Principal(subject="alice", username="alice", roles=frozenset())


class FreshCopies:
    """A catalog that, like the database, answers a new (equal) object on every lookup; `hold` makes
    the next lookup wait until released."""

    def __init__(self, device_type: DeviceType) -> None:
        self.device_type = device_type
        self.hold: asyncio.Event | None = None
        self.lookups = 0

    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]:
        return [self.device_type.model_copy()]

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        self.lookups += 1
        if self.hold is not None:
            await self.hold.wait()
        return self.device_type.model_copy()


class Projects:
    """Alice is a member of `team-a` only; `team-b` is hidden from her; the listing can fail."""

    def __init__(self) -> None:
        self.down = False

    async def hidden_namespaces(self, principal: Principal | None) -> frozenset[str]:
        if self.down:
            raise DependencyUnavailable(code="kubernetes.unreachable", dependency="kubernetes")
        assert principal is not None
        return frozenset() if principal.is_admin else frozenset({"team-b"})


@pytest.fixture
async def catalog() -> FreshCopies:
    return FreshCopies(lpu("a", "a"))


@pytest.fixture
async def monitoring(catalog: FreshCopies) -> AsyncIterator[MonitoringService]:
    # Refreshing in the background (a read that does not wait needs a live refresher), but once an
    # hour: no evaluation lands during a test unless it asks for one.
    service = MonitoringService(
        catalog,
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        Prometheus({"a_util": 40.0, "a_temp": 50.0}),
        MonitoringSettings(scrape_interval_seconds=3600),
    )
    yield service
    await service.close()


async def test_the_version_of_the_last_read_is_at_hand_after_every_lookup(
    monitoring: MonitoringService, catalog: FreshCopies
) -> None:
    assert monitoring.current_version(ME, "a") is None  # never looked up
    first = await monitoring.read_page(ME, "a", PageQuery())
    assert monitoring.current_version(ME, "a") == first.version
    # A later read looks the type up again and gets another (equal) object from the catalog: the
    # version stays at hand, the refresher is the same.
    second = await monitoring.read_page(ME, "a", PageQuery(limit=1))
    assert catalog.lookups == 2
    assert second.version == first.version
    assert monitoring.current_version(ME, "a") == first.version


async def test_an_edit_through_this_replica_puts_the_version_out_of_hand_at_once(
    monitoring: MonitoringService,
) -> None:
    await monitoring.read_page(ME, "a", PageQuery())
    monitoring.type_changed("a")
    assert monitoring.current_version(ME, "a") is None
    await monitoring.read_page(ME, "a", PageQuery())
    assert monitoring.current_version(ME, "a") is not None


async def test_a_lookup_that_began_before_an_edit_is_not_taken_as_current(
    monitoring: MonitoringService, catalog: FreshCopies
) -> None:
    await monitoring.read_page(ME, "a", PageQuery())
    monitoring.type_changed("a")
    catalog.hold = asyncio.Event()
    reading = asyncio.ensure_future(monitoring.read_page(ME, "a", PageQuery()))
    await asyncio.sleep(0)
    monitoring.type_changed("a")  # committed while that lookup was out
    catalog.hold.set()
    await reading
    assert monitoring.current_version(ME, "a") is None


async def test_a_lookup_older_than_the_recheck_time_is_out_of_hand(
    monitoring: MonitoringService, monkeypatch: pytest.MonkeyPatch
) -> None:
    await monitoring.read_page(ME, "a", PageQuery())
    monkeypatch.setattr(lookups, "CATALOG_RECHECK_SECONDS", 0.0)
    assert monitoring.current_version(ME, "a") is None


async def test_each_evaluation_is_a_new_version(catalog: FreshCopies) -> None:
    service = MonitoringService(
        catalog,
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        Prometheus({"a_util": 40.0}),
        MonitoringSettings(scrape_interval_seconds=0.2),
    )
    try:
        first = await service.read_page(ME, "a", PageQuery())

        async def moved_on() -> bool:
            # Reads keep the refresher awake; the background tick evaluates again.
            await service.read_page(ME, "a", PageQuery())
            return service.current_version(ME, "a") not in (None, first.version)

        await until(moved_on, within=10, every=0.05, what="a second evaluation")
    finally:
        await service.close()


async def test_readers_share_an_audience_only_when_they_may_see_the_same_names() -> None:
    projects = Projects()
    service = MonitoringService(
        FreshCopies(lpu("a", "a")),
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        Prometheus({"a_util": 40.0}),
        visibility=projects,
        background=False,
    )
    assert await service.audience(ADMIN) == SEES_ALL
    assert await service.audience(ALICE) == frozenset({"team-b"})
    projects.down = True
    assert await service.audience(ALICE) == SEES_NONE
    assert (await service.read_page(ALICE, "a", PageQuery())).audience == SEES_NONE
    await service.close()


async def test_a_page_is_cut_now_only_at_the_version_just_given(monitoring: MonitoringService) -> None:
    read = await monitoring.read_page(ME, "a", PageQuery(limit=1))
    version = monitoring.current_version(ME, "a")
    now = monitoring.read_page_now(version, PageQuery(limit=1), "all")
    assert now is not None and now.version == read.version
    assert now.page.snapshot.time == read.page.snapshot.time and now.page.matched_nodes == 1
    refresher = version[0]  # type: ignore[index]
    assert monitoring.read_page_now((refresher, refresher.version + 1), PageQuery(), "all") is None
    assert monitoring.read_page_now("not a version", PageQuery(), "all") is None
