"""What the monitoring service needs and gives, apart from the service itself: the parts of the
catalog and of Prometheus it uses, the page reads and stream items it answers, its per-type figures."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from nufi.auth import Principal
from nufi.devices.spec import DeviceType
from nufi.errors import NufiError
from nufi.monitoring.snapshots.audience import Audience
from nufi.monitoring.snapshots.paging import SnapshotPage
from nufi.monitoring.snapshots.refresher import RefresherStats
from nufi.monitoring.snapshots.snapshot import Snapshot
from nufi.prom import PrometheusUnavailable, QueryResult


class ContinueExpired(NufiError):
    """A `continue` token names a snapshot this replica no longer keeps."""

    status = 410
    title = "Continue token expired"
    type = "continue-expired"


class DeviceTypes(Protocol):
    """The part of the device catalog monitoring uses (`DeviceCatalog` in the server)."""

    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]: ...

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType: ...


class MonitoringPrometheus(Protocol):
    """The part of the Prometheus gateway monitoring uses."""

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult: ...

    async def query_range(
        self, promql: str, start: datetime | float, end: datetime | float, step_seconds: float
    ) -> QueryResult: ...


@dataclass(frozen=True)
class TypeStats:
    """What one type's refresher has done, for NuFi's own metrics."""

    device_type: str
    stats: RefresherStats
    refreshing: bool
    open_streams: int
    stale_series: int
    remembered_series: int


# A stream item: a snapshot, the failure when there is no good snapshot, or None for a heartbeat.
StreamItem = Snapshot | PrometheusUnavailable | None


@dataclass(frozen=True)
class PageRead:
    """A page as `audience` sees it, cut from the snapshot a type's refresher served at `version`:
    reads with equal version and audience (and page parameters) get equal pages, but for the age."""

    page: SnapshotPage
    version: Hashable
    audience: Audience
