"""Time ranges of one type's metrics, read through the shared range cache: charts and protection replays.

A range's window is aligned to its step, so every reader of the same range shares one Prometheus query
per expression (`nufi.monitoring.ranges.cache`). A query Prometheus rejects, or cannot answer while
others succeed, becomes an entry in the result's `errors`; when it answers none, PrometheusUnavailable
is raised (503).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from nufi.auth import Principal, require_user
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.devices.readings import finite_value
from nufi.devices.spec import DeviceType, MetricKey
from nufi.errors import NufiError
from nufi.monitoring.contracts import DeviceTypes, MonitoringPrometheus
from nufi.monitoring.flight import SingleFlight
from nufi.monitoring.ranges.cache import RangeCache, Window, align
from nufi.monitoring.ranges.chunks import chunks
from nufi.monitoring.ranges.queries import peak_expression, range_expressions
from nufi.monitoring.ranges.request import Grouping, RangeQuery, RangeRequest, parse_range_request
from nufi.monitoring.ranges.result import RangeResult, RangeSeries, assemble_range, limit_series
from nufi.monitoring.settings import MonitoringSettings
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult

Outcome = QueryResult | NufiError


class RangeReader:
    def __init__(
        self,
        catalog: DeviceTypes,
        fetchers: FetcherRegistry,
        prometheus: MonitoringPrometheus,
        settings: MonitoringSettings,
        *,
        clock: Callable[[], float],
        lookups: SingleFlight[str, DeviceType],
    ) -> None:
        self._catalog = catalog
        self._fetchers = fetchers
        self._settings = settings
        self._clock = clock
        # Shared with the snapshot reads: concurrent reads of a type share one catalog read.
        self._lookups = lookups
        self._cache = RangeCache(prometheus.query_range, clock=clock)

    def parse(self, query: RangeQuery) -> RangeRequest:
        """`query` checked against this replica's bounds (its scrape interval and longest range)."""
        return parse_range_request(
            query,
            now=self._clock(),
            finest_step_seconds=self._settings.scrape_interval_seconds,
            max_range_seconds=self._settings.max_range_seconds,
        )

    async def history(
        self, principal: Principal | None, device_type_id: str, query: RangeQuery
    ) -> RangeResult:
        """A time range of one metric of one type, per device or per node. `points` caps the points per
        series of the default step, `series` the series sent, the highest by `top` (`latest` or
        `peak`), chosen after the shared query."""
        require_user(principal)
        request = _aligned(self.parse(query))
        device_type = await self._lookups.run(
            device_type_id, lambda: self._catalog.get(principal, device_type_id)
        )
        fetcher = self._fetchers.for_type(device_type)
        expressions = range_expressions(device_type, request)
        window = Window(request.start, request.end, request.step_seconds)
        results = await self._read(device_type.id, [(e, window) for e in expressions.values()])
        outcomes: dict[MetricKey, Outcome] = dict(zip(expressions, results, strict=True))
        return limit_series(
            assemble_range(device_type, request, outcomes, expressions, usable=fetcher.usable)
        )

    async def peak_history(
        self,
        principal: Principal | None,
        device_type_id: str,
        *,
        start: str | None,
        end: str | None,
        step_seconds: float,
        by: Grouping,
        expression: str | None = None,
    ) -> RangeResult:
        """The highest temperature per device (or per node, of its hottest device) over each step of a
        range, at `step_seconds` however long the range (asked in parts within Prometheus' limit); or
        the highest of `expression`, any finite value a reading, where one is given. `start` defaults
        to an hour before `end`, `end` to now, checked as `history` checks them."""
        require_user(principal)
        request = self.parse(RangeQuery("temperature", start=start, end=end, by=by))
        request = _aligned(replace(request, step_seconds=step_seconds))
        device_type = await self._catalog.get(principal, device_type_id)
        usable = self._fetchers.for_type(device_type).usable if expression is None else finite_value
        family = device_type.metrics.queries().get("temperature") if expression is None else expression
        if family is None:
            return assemble_range(device_type, request, {}, {}, usable=usable)
        resolution = min(step_seconds, self._settings.scrape_interval_seconds)
        expression = peak_expression(
            family, device_type.labels, by=by, window_seconds=step_seconds, resolution_seconds=resolution
        )
        parts = chunks(request.start, request.end, step_seconds)
        results = await self._read(
            device_type.id, [(expression, Window(a, b, step_seconds)) for a, b in parts]
        )
        queries: dict[MetricKey, str] = {"temperature": expression}
        assembled = [
            assemble_range(device_type, request, {"temperature": r}, queries, usable=usable) for r in results
        ]
        points: dict[tuple[str, str | None], list[tuple[float, float]]] = {}
        for part in assembled:
            for one in part.series:
                points.setdefault((one.node, one.device), []).extend(one.values)
        series = tuple(RangeSeries(k[0], k[1], tuple(v)) for k, v in sorted(points.items()))
        errors = tuple(dict.fromkeys(e for part in assembled for e in part.errors))
        return RangeResult(device_type.id, request, True, series, errors)

    async def _read(self, device_type_id: str, asked: list[tuple[str, Window]]) -> list[Outcome]:
        """Each expression over its window; PrometheusUnavailable when Prometheus answered none."""
        results = await asyncio.gather(*(self._one(device_type_id, e, w) for e, w in asked))
        unreachable = [o for o in results if isinstance(o, PrometheusUnavailable)]
        if unreachable and len(unreachable) == len(results):
            raise unreachable[0]
        return results

    async def _one(self, device_type_id: str, expression: str, window: Window) -> Outcome:
        try:
            return await self._cache.read(device_type_id, expression, window)
        except (PrometheusQueryRejected, PrometheusUnavailable) as exc:
            return exc


def _aligned(request: RangeRequest) -> RangeRequest:
    window = align(request.start, request.end, request.step_seconds)
    return replace(request, start=window.start, end=window.end)
