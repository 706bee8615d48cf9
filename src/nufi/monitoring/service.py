"""The monitoring service: snapshots, the overview and time ranges of device types.

Cost per request is fixed by construction: one Prometheus query per reported quantity of each type
(one `query_range` per series family for a range), one paginated node list and one pod list, whatever
the number of nodes and devices; everything is joined in memory. Kubernetes and Prometheus are asked
at the same time.

Failure rules: a query Prometheus rejects, or cannot answer while others succeed, becomes an entry in
`errors` and the answer is still 200; when Prometheus answers none of a request's queries, the
PrometheusUnavailable is raised (503). A cluster that cannot be read is an entry in `errors` too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from nufi.auth import Principal, require_user
from nufi.cluster import ClusterGateway
from nufi.devices.fetcher import DeviceFetcher
from nufi.devices.fetcher_registry import FetcherRegistry, UnknownFetcher
from nufi.devices.readings import Readings
from nufi.devices.spec import DeviceType, MetricKey
from nufi.errors import DependencyUnavailable, NufiError
from nufi.monitoring.assembly import assemble_snapshot
from nufi.monitoring.cluster_view import ClusterView, read_cluster
from nufi.monitoring.freshness import FreshnessProbe, metrics_of
from nufi.monitoring.overview import Overview, OverviewRow
from nufi.monitoring.range_queries import range_expressions
from nufi.monitoring.range_request import parse_range_request
from nufi.monitoring.range_result import RangeResult, assemble_range
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshot import MonitoringError, Snapshot
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult


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
class _Observed:
    readings: Readings
    probe: FreshnessProbe


class MonitoringService:
    def __init__(
        self,
        catalog: DeviceTypes,
        fetchers: FetcherRegistry,
        cluster: ClusterGateway,
        prometheus: MonitoringPrometheus,
        settings: MonitoringSettings | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._catalog = catalog
        self._fetchers = fetchers
        self._cluster = cluster
        self._prometheus = prometheus
        self._settings = settings if settings is not None else MonitoringSettings()
        self._clock = clock

    @property
    def settings(self) -> MonitoringSettings:
        return self._settings

    async def snapshot(self, principal: Principal | None, device_type_id: str) -> Snapshot:
        """Every node and device of one type right now."""
        require_user(principal)
        device_type = await self._catalog.get(principal, device_type_id)
        fetcher = self._fetchers.for_type(device_type)
        (outcome,), views, cluster_error = await self._observe([(device_type, fetcher)])
        if isinstance(outcome, PrometheusUnavailable):
            raise outcome
        return self._assemble(device_type, outcome, views, cluster_error)

    async def overview(self, principal: Principal | None) -> Overview:
        """One row per enabled type, from one cluster read and one query per quantity of each type."""
        require_user(principal)
        types = await self._catalog.list(principal, enabled_only=True)
        entries: list[tuple[DeviceType, DeviceFetcher]] = []
        unusable: dict[str, MonitoringError] = {}
        for device_type in types:
            try:
                entries.append((device_type, self._fetchers.for_type(device_type)))
            except UnknownFetcher as exc:
                unusable[device_type.id] = MonitoringError("catalog", exc.detail)
        outcomes, views, cluster_error = await self._observe(entries)
        failures = [o for o in outcomes if isinstance(o, PrometheusUnavailable)]
        if failures and len(failures) == len(outcomes):
            raise failures[0]
        observed = {t.id: o for (t, _), o in zip(entries, outcomes, strict=True)}
        rows = []
        for device_type in types:
            outcome = observed.get(device_type.id)
            if isinstance(outcome, _Observed):
                snapshot = self._assemble(device_type, outcome, views, cluster_error)
                rows.append(OverviewRow(device_type, snapshot))
            elif outcome is not None:
                rows.append(OverviewRow(device_type, None, (MonitoringError("prometheus", outcome.detail),)))
            else:
                rows.append(OverviewRow(device_type, None, (unusable[device_type.id],)))
        return Overview(tuple(rows))

    async def history(
        self,
        principal: Principal | None,
        device_type_id: str,
        *,
        metric: str,
        start: str | None = None,
        end: str | None = None,
        step: str | None = None,
        by: str | None = None,
        node: str | None = None,
        device: str | None = None,
    ) -> RangeResult:
        """A time range of one metric of one type, per device or per node."""
        require_user(principal)
        request = parse_range_request(
            metric=metric,
            start=start,
            end=end,
            step=step,
            by=by,
            node=node,
            device=device,
            now=self._clock(),
            finest_step_seconds=self._settings.scrape_interval_seconds,
            max_range_seconds=self._settings.max_range_seconds,
        )
        device_type = await self._catalog.get(principal, device_type_id)
        fetcher = self._fetchers.for_type(device_type)
        expressions = range_expressions(device_type, request)
        results = await asyncio.gather(
            *(
                self._range(expression, request.start, request.end, request.step_seconds)
                for expression in expressions.values()
            )
        )
        outcomes: dict[MetricKey, QueryResult | NufiError] = dict(zip(expressions, results, strict=True))
        unreachable = [o for o in results if isinstance(o, PrometheusUnavailable)]
        if unreachable and len(unreachable) == len(results):
            raise unreachable[0]
        return assemble_range(device_type, request, outcomes, expressions, usable=fetcher.usable)

    # -- internals -----------------------------------------------------------------------------------

    async def _observe(
        self, entries: Sequence[tuple[DeviceType, DeviceFetcher]]
    ) -> tuple[list[_Observed | PrometheusUnavailable], dict[str, ClusterView], MonitoringError | None]:
        """Readings of every type and the cluster's view of them, all at once."""
        cluster_task = asyncio.ensure_future(self._cluster_views(entries))
        try:
            outcomes = await asyncio.gather(*(self._read(t, f) for t, f in entries))
        except BaseException:
            cluster_task.cancel()
            await asyncio.gather(cluster_task, return_exceptions=True)
            raise
        views, cluster_error = await cluster_task
        return list(outcomes), views, cluster_error

    async def _read(
        self, device_type: DeviceType, fetcher: DeviceFetcher
    ) -> _Observed | PrometheusUnavailable:
        probe = FreshnessProbe(
            self._prometheus,
            window_seconds=self._settings.window_seconds,
            step_seconds=self._settings.scrape_interval_seconds,
            keep_labels=fetcher.labels_read(device_type) or (),
        )
        try:
            readings = await fetcher.readings(device_type, probe)
            probe.raise_if_nothing_answered()
        except PrometheusUnavailable as exc:
            return exc
        return _Observed(readings, probe)

    async def _cluster_views(
        self, entries: Sequence[tuple[DeviceType, DeviceFetcher]]
    ) -> tuple[dict[str, ClusterView], MonitoringError | None]:
        if not entries:
            return {}, None
        try:
            return await read_cluster(self._cluster, entries), None
        except DependencyUnavailable as exc:
            return {}, MonitoringError("kubernetes", exc.detail)

    async def _range(self, expression: str, start: float, end: float, step: float) -> QueryResult | NufiError:
        try:
            return await self._prometheus.query_range(expression, start, end, step)
        except (PrometheusQueryRejected, PrometheusUnavailable) as exc:
            return exc

    def _assemble(
        self,
        device_type: DeviceType,
        observed: _Observed,
        views: dict[str, ClusterView],
        cluster_error: MonitoringError | None,
    ) -> Snapshot:
        probe = observed.probe
        queries = device_type.metrics.queries()
        errors = []
        for failure in probe.failures:
            metrics: list[MetricKey | None] = [*metrics_of(failure.expression, queries)] or [None]
            errors += [
                MonitoringError("prometheus", failure.error.detail, metric=metric, query=failure.expression)
                for metric in metrics
            ]
        if cluster_error is not None:
            errors.append(cluster_error)
        return assemble_snapshot(
            device_type,
            observed.readings,
            time=probe.evaluated_at if probe.evaluated_at is not None else self._clock(),
            stale_after_seconds=self._settings.stale_after_seconds,
            cluster=views.get(device_type.id),
            errors=errors,
        )
