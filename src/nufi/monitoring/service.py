"""The monitoring service: snapshots, the overview and time ranges of device types.

Snapshots come from one refresher per device type (`nufi.monitoring.snapshots.refresher`), shared by every
reader in the replica: however many people watch a type, Prometheus is asked once per refresh interval
per quantity. A read first looks the type up in the catalog (concurrent lookups of one type share one
database read), so a type registered or edited a moment ago is served with its new expressions on the
next read: an edit replaces the type's refresher, and with it everything the old one remembered.

Failure rules: a query Prometheus rejects, or cannot answer while others succeed, becomes an entry in
`errors` and the answer is still 200; when Prometheus answers none of a type's queries, the last good
snapshot is served with the failure in its `errors`, and without one PrometheusUnavailable is raised
(503). A cluster that cannot be read is an entry in `errors` too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable, Hashable
from dataclasses import dataclass

from nufi.auth import Principal, require_user
from nufi.cluster import ClusterReader
from nufi.devices.fetcher import DeviceFetcher
from nufi.devices.fetcher_registry import FetcherRegistry, UnknownFetcher
from nufi.devices.spec import DeviceType
from nufi.errors import NotFound
from nufi.monitoring.contracts import (
    ContinueExpired,
    DeviceTypes,
    MonitoringPrometheus,
    PageRead,
    StreamItem,
    TypeStats,
)
from nufi.monitoring.flight import SingleFlight
from nufi.monitoring.ranges.request import RangeQuery
from nufi.monitoring.ranges.result import RangeResult
from nufi.monitoring.ranges.service import RangeReader
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshots.audience import Audience, Audiences
from nufi.monitoring.snapshots.evaluation import Sources, evaluate
from nufi.monitoring.snapshots.freshness import SeriesMemory
from nufi.monitoring.snapshots.lookups import RecentLookups
from nufi.monitoring.snapshots.masking import NamespaceVisibility
from nufi.monitoring.snapshots.overview import Overview
from nufi.monitoring.snapshots.paging import PageQuery, SnapshotPage, decode_continue, page_snapshot
from nufi.monitoring.snapshots.refresher import Refresher
from nufi.monitoring.snapshots.snapshot import MonitoringError, Snapshot, said_of
from nufi.prom import PrometheusUnavailable


@dataclass
class _Watched:
    device_type: DeviceType
    fetcher: DeviceFetcher
    memory: SeriesMemory
    refresher: Refresher


class MonitoringService:
    def __init__(
        self,
        catalog: DeviceTypes,
        fetchers: FetcherRegistry,
        reader: ClusterReader,
        prometheus: MonitoringPrometheus,
        settings: MonitoringSettings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        background: bool = True,
        visibility: NamespaceVisibility | None = None,
    ) -> None:
        self._catalog = catalog
        # Who may see which pod and namespace names.
        self._audiences = Audiences(visibility)
        self._fetchers = fetchers
        self._sources = Sources(prometheus, reader)
        self._prometheus = prometheus
        self._settings = settings if settings is not None else MonitoringSettings()
        self._clock = clock
        self._background = background
        self._watched: dict[str, _Watched] = {}
        self._lookups: SingleFlight[str, DeviceType] = SingleFlight()
        self._recent = RecentLookups()
        self._listings: SingleFlight[str, list[DeviceType]] = SingleFlight()
        self._closing: set[asyncio.Future[None]] = set()
        self._open_streams: dict[str, int] = {}
        self._ranges = RangeReader(
            catalog, fetchers, prometheus, self._settings, clock=clock, lookups=self._lookups
        )

    @property
    def settings(self) -> MonitoringSettings:
        return self._settings

    @property
    def ranges(self) -> RangeReader:
        """Time ranges of the types' metrics, through this replica's shared range cache."""
        return self._ranges

    async def snapshot(self, principal: Principal | None, device_type_id: str) -> Snapshot:
        """Every node and device of one type, as of the type's latest evaluation."""
        require_user(principal)
        audience = await self._audiences.of(principal)
        snapshot = await (await self._refresher(principal, device_type_id)).read()
        return self._audiences.masked(snapshot, audience)

    async def snapshot_page(
        self, principal: Principal | None, device_type_id: str, query: PageQuery
    ) -> SnapshotPage:
        """One page of a type's nodes, filtered and sorted; the summary covers the whole type. Every
        page after the first comes from the snapshot the first was cut from."""
        return (await self.read_page(principal, device_type_id, query)).page

    async def read_page(self, principal: Principal | None, device_type_id: str, query: PageQuery) -> PageRead:
        """`snapshot_page` with what it was cut from: the refresher's version and the reader's audience."""
        require_user(principal)
        token = decode_continue(query)
        audience = await self._audiences.of(principal)
        refresher = await self._refresher(principal, device_type_id)
        snapshot = await refresher.read() if token is None else refresher.retained(token.snapshot_time)
        if snapshot is None:
            raise ContinueExpired(code="monitoring.continue_expired", field="continue")
        # Taken with no await since the read, so it is the version of this very snapshot.
        version = (refresher, refresher.version)
        offset = 0 if token is None else token.offset
        return PageRead(
            page_snapshot(self._audiences.masked(snapshot, audience), query, offset=offset), version, audience
        )

    async def audience(self, principal: Principal | None) -> Audience:
        """The group of readers who see what `principal` sees (`PageRead.audience`)."""
        return await self._audiences.of(principal)

    def current_version(self, principal: Principal, device_type_id: str) -> Hashable | None:
        """The version a read of the type would be served right now without waiting for anything (the
        catalog, an evaluation), counted as a read; None when a read has to wait (then `read_page`).
        The caller has authenticated the reader: every user may read every type."""
        refresher = self._recent.current(device_type_id, lambda: self._refresher(principal, device_type_id))
        version = None if refresher is None else refresher.peek()
        return None if version is None else (refresher, version)

    def read_page_now(self, version: Hashable, query: PageQuery, audience: Audience) -> PageRead | None:
        """`read_page` for a reader of `audience` at the `version` `current_version` just gave, with
        nothing awaited, so no other read runs in between; None when that page cannot be cut now."""
        refresher = version[0] if isinstance(version, tuple) else None
        if not isinstance(refresher, Refresher) or (refresher, refresher.version) != version:
            return None
        token = decode_continue(query)
        snapshot = refresher.served() if token is None else refresher.retained(token.snapshot_time)
        if snapshot is None:
            return None
        offset = 0 if token is None else token.offset
        page = page_snapshot(self._audiences.masked(snapshot, audience), query, offset=offset)
        return PageRead(page, version, audience)

    def age_of(self, data_time: float) -> float:
        """How old a snapshot whose newest sample was taken at `data_time` (`Snapshot.data_time`) is
        now, as reads report it."""
        return max(self._clock() - data_time, 0.0)

    def type_changed(self, device_type_id: str) -> None:
        """A type was created, edited or deleted: the next read looks it up in the catalog."""
        self._recent.changed(device_type_id)

    async def stream(
        self, principal: Principal | None, device_type_id: str, *, heartbeat_seconds: float
    ) -> AsyncGenerator[StreamItem, None]:
        """The type's current snapshot, then one per evaluation, with None after `heartbeat_seconds`
        without one. Each item looks the type up again, so an edit is followed and a deletion ends the
        stream (NotFound)."""
        require_user(principal)
        current: Refresher | None = None
        seen = 0
        self._open_streams[device_type_id] = self._open_streams.get(device_type_id, 0) + 1
        try:
            while True:
                refresher = await self._refresher(principal, device_type_id)
                if refresher is not current:
                    current, seen = refresher, 0
                landed = await refresher.next_after(seen, heartbeat_seconds)
                if landed is None:
                    yield None
                    continue
                seen, item = landed
                if isinstance(item, Snapshot):
                    yield self._audiences.masked(item, await self._audiences.of(principal))
                else:
                    yield item
        finally:
            left = self._open_streams.pop(device_type_id) - 1
            if left:
                self._open_streams[device_type_id] = left

    async def overview(self, principal: Principal | None) -> Overview:
        """One row per enabled type, each from its refresher."""
        require_user(principal)
        types = await self._listings.run("enabled", lambda: self._catalog.list(principal, enabled_only=True))
        listed = {device_type.id for device_type in types}
        for type_id, watched in list(self._watched.items()):
            # A deleted or disabled type nobody reads any more: let go of what its refresher holds.
            if type_id not in listed and not watched.refresher.refreshing:
                self._forget(type_id)
        refreshers: dict[str, Refresher] = {}
        unusable: dict[str, MonitoringError] = {}
        for device_type in types:
            try:
                refreshers[device_type.id] = self._refresher_of(device_type)
            except UnknownFetcher as exc:
                unusable[device_type.id] = MonitoringError("catalog", exc.detail, said=said_of(exc))
        read = await asyncio.gather(*(r.outcome() for r in refreshers.values()))
        outcomes = dict(zip(refreshers, read, strict=True))
        failures = [o for o in outcomes.values() if isinstance(o, PrometheusUnavailable)]
        if failures and len(failures) == len(outcomes):
            raise failures[0]
        return Overview.of(types, outcomes, unusable)

    def stats(self) -> list[TypeStats]:
        return [
            TypeStats(
                device_type=type_id,
                stats=watched.refresher.stats,
                refreshing=watched.refresher.refreshing,
                open_streams=self._open_streams.get(type_id, 0),
                stale_series=len(watched.refresher.latest.stale) if watched.refresher.latest else 0,
                remembered_series=watched.memory.series,
            )
            for type_id, watched in sorted(self._watched.items())
        ]

    def lags(self) -> dict[str, float]:
        """How late the data of each type's latest snapshot was when read (`Snapshot.lag_seconds`)."""
        watched = list(self._watched.items())
        return {k: w.refresher.latest.lag_seconds for k, w in watched if w.refresher.latest is not None}

    async def close(self) -> None:
        watched, self._watched = list(self._watched.values()), {}
        self._recent.close()
        await asyncio.gather(*(w.refresher.close() for w in watched), *self._closing)

    async def history(
        self, principal: Principal | None, device_type_id: str, query: RangeQuery
    ) -> RangeResult:
        """A time range of one metric of one type (`nufi.monitoring.ranges.service`)."""
        return await self._ranges.history(principal, device_type_id, query)

    # -- internals -----------------------------------------------------------------------------------

    async def _refresher(self, principal: Principal | None, device_type_id: str) -> Refresher:
        began = self._recent.began()
        try:
            device_type = await self._lookups.run(
                device_type_id, lambda: self._catalog.get(principal, device_type_id)
            )
        except NotFound:
            self._forget(device_type_id)
            self._recent.forget(device_type_id)
            raise
        refresher = self._refresher_of(device_type)
        self._recent.found(device_type_id, began, refresher)
        return refresher

    def _refresher_of(self, device_type: DeviceType) -> Refresher:
        """The type's refresher; a new one when the type (or its fetcher) changed since the last read."""
        fetcher = self._fetchers.for_type(device_type)
        watched = self._watched.get(device_type.id)
        if watched is not None and watched.device_type == device_type and watched.fetcher is fetcher:
            return watched.refresher
        self._forget(device_type.id)
        memory = SeriesMemory(window_seconds=self._settings.window_seconds)
        stale_after = self._settings.stale_after_seconds

        async def evaluate_at(at: float) -> Snapshot:
            return await evaluate(
                device_type, fetcher, self._sources, memory, at=at, stale_after_seconds=stale_after
            )

        refresher = Refresher(
            evaluate_at,
            interval_seconds=self._settings.refresh_seconds,
            clock=self._clock,
            background=self._background,
        )
        self._watched[device_type.id] = _Watched(device_type, fetcher, memory, refresher)
        return refresher

    def _forget(self, device_type_id: str) -> None:
        self._recent.forget(device_type_id)
        watched = self._watched.pop(device_type_id, None)
        if watched is not None:
            # Nobody reads the old refresher any more; it must not keep evaluating the old expressions.
            closing = asyncio.ensure_future(watched.refresher.close())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
