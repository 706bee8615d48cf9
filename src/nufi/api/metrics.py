"""NuFi's own Prometheus metrics: HTTP traffic plus process facts, served at /metrics.

Each app owns its registry, so several apps in one process (tests, embedded use) never collide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from fastapi import APIRouter, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, SummaryMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from nufi.alerts.service import AlertService
from nufi.api.snapshot_pages import RenderedPages
from nufi.background.board import Background, JobReport
from nufi.monitoring.contracts import TypeStats
from nufi.monitoring.service import MonitoringService
from nufi.thermal.protection.controller import ThermalController

THERMAL_STATES = ("normal", "hot", "stale")
Row = TypeVar("Row")

_KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

router = APIRouter()


class HttpMetrics:
    """Request count and latency by method, route template and status code."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        # The process, platform and GC collectors are stateless readers; sharing them is safe.
        for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            self.registry.register(collector)
        labels = ("method", "route", "status")
        self._requests = Counter(
            "nufi_http_requests",
            "HTTP requests answered, by method, route template and status code.",
            labels,
            registry=self.registry,
        )
        self._duration = Histogram(
            "nufi_http_request_duration_seconds",
            "Time to answer an HTTP request, by method, route template and status code.",
            labels,
            buckets=_BUCKETS,
            registry=self.registry,
        )

        self._monitoring = _MonitoringCollector()
        self.registry.register(self._monitoring)
        self._thermal = _ThermalCollector()
        self.registry.register(self._thermal)
        self._pages = _PagesCollector()
        self.registry.register(self._pages)
        self._capacity = _CapacityCollector()
        self.registry.register(self._capacity)
        self._background = _BackgroundCollector()
        self.registry.register(self._background)

    def watch(self, monitoring: MonitoringService | None) -> None:
        """Report the refreshers of `monitoring` (None: stop reporting them)."""
        self._monitoring.service = monitoring

    def watch_pages(self, pages: RenderedPages) -> None:
        """Report how `pages` renders and reuses snapshot pages."""
        self._pages.pages = pages

    def watch_thermal(self, controller: ThermalController | None) -> None:
        """Report the thermal controller's node states (None: stop reporting them)."""
        self._thermal.controller = controller

    def watch_capacity(self, alerts: AlertService | None) -> None:
        """Serve each node's device capacity, which the generated alerting rules compare with what
        reports (None: stop serving it)."""
        self._capacity.alerts = alerts

    def watch_background(self, background: Background | None) -> None:
        """Report every listed background job's status (None: stop reporting them)."""
        self._background.board = background

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        # Unbounded label values (raw paths, made-up methods) would grow the series count forever.
        method_label = method if method in _KNOWN_METHODS else "OTHER"
        status_label = str(status)
        self._requests.labels(method_label, route, status_label).inc()
        self._duration.labels(method_label, route, status_label).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


@dataclass(frozen=True)
class _Series(Generic[Row]):
    """One labelled metric family, valued from each row; a None value is no sample."""

    kind: type[GaugeMetricFamily | CounterMetricFamily]
    name: str
    doc: str
    value: Callable[[Row], float | None]


def _families(label: str, series: Sequence[_Series[Row]], rows: list[tuple[str, Row]]) -> Iterator[Metric]:
    families = [one.kind(one.name, one.doc, labels=[label]) for one in series]
    for key, row in rows:
        for family, one in zip(families, series, strict=True):
            value = one.value(row)
            if value is not None:
                family.add_metric([key], value)
    yield from families


class _BackgroundCollector(Collector):
    """Each listed background job: whether it runs here, its last success and its failures."""

    def __init__(self) -> None:
        self.board: Background | None = None

    def collect(self) -> Iterator[Metric]:
        reports = list(self.board.reports()) if self.board is not None else []
        yield from _families("job", _BACKGROUND, [(r.job.name, r) for r in reports])


_BACKGROUND: tuple[_Series[JobReport], ...] = (
    _Series(
        GaugeMetricFamily,
        "nufi_background_job_running",
        "1 while the job runs in this replica, 0 when it does not.",
        lambda r: 1 if r.not_running is None else 0,
    ),
    _Series(
        GaugeMetricFamily,
        "nufi_background_job_last_success_timestamp_seconds",
        "When the job's last pass succeeded (Unix time); absent until one has.",
        lambda r: r.status.last_success_at,
    ),
    _Series(
        GaugeMetricFamily,
        "nufi_background_job_consecutive_failures",
        "Passes failed since the last success.",
        lambda r: r.status.consecutive_failures,
    ),
    _Series(
        CounterMetricFamily,
        "nufi_background_job_failures",
        "Passes of the job that failed since start.",
        lambda r: r.status.failures,
    ),
)


class _CapacityCollector(Collector):
    def __init__(self) -> None:
        self.alerts: AlertService | None = None

    def collect(self) -> Iterator[Metric]:
        capacity = GaugeMetricFamily(
            "nufi_device_capacity",
            "Devices a node has of a device type's resource key, by its status.capacity.",
            labels=["device_type", "node", "resource"],
        )
        for sample in self.alerts.capacity() if self.alerts is not None else ():
            capacity.add_metric([sample.device_type, sample.node, sample.resource], sample.devices)
        yield capacity


class _ThermalCollector(Collector):
    """Per device type and node, which thermal state it is in (1 for the current state, 0 for the others)."""

    def __init__(self) -> None:
        self.controller: ThermalController | None = None

    def collect(self) -> Iterator[Metric]:
        states = GaugeMetricFamily(
            "nufi_thermal_node_state",
            "1 for a node's current thermal state (normal, hot or stale), 0 for the others.",
            labels=["device_type", "node", "state"],
        )
        cut = GaugeMetricFamily(
            "nufi_thermal_node_traffic_cut",
            "1 while the traffic of a node's serving pods is cut (it stays cut while the node is stale).",
            labels=["device_type", "node"],
        )
        leader = GaugeMetricFamily("nufi_thermal_leader", "1 while this replica is the one acting.")
        held = GaugeMetricFamily(
            "nufi_protection_breaker_held",
            "1 while a device type's circuit breaker holds affected nodes back (their traffic kept).",
            labels=["device_type"],
        )
        if self.controller is not None:
            status = self.controller.status
            leader.add_metric([], 1 if status.leader else 0)
            for entry in status.types:
                for node in entry.nodes:
                    for state in THERMAL_STATES:
                        states.add_metric(
                            [entry.device_type, node.node, state], 1 if node.state == state else 0
                        )
                    cut.add_metric([entry.device_type, node.node], 1 if node.hot else 0)
                breaker = entry.breaker
                held.add_metric([entry.device_type], 1 if breaker is not None and breaker.held else 0)
        yield states
        yield cut
        yield leader
        yield held


class _PagesCollector(Collector):
    """Rendered snapshot pages: how often a page is rendered, and how often one is answered again."""

    def __init__(self) -> None:
        self.pages: RenderedPages | None = None

    def collect(self) -> Iterator[Metric]:
        pages = self.pages
        if pages is None:
            return
        yield CounterMetricFamily(
            "nufi_snapshot_pages_rendered", "Snapshot pages rendered to JSON.", value=pages.rendered
        )
        yield CounterMetricFamily(
            "nufi_snapshot_pages_reused",
            "Snapshot reads answered with a page rendered before for the same snapshot, query and audience.",
            value=pages.reused,
        )
        yield CounterMetricFamily(
            "nufi_snapshot_pages_direct",
            "Of those, reads answered without routing: token and page were at hand.",
            value=pages.direct,
        )
        yield GaugeMetricFamily("nufi_snapshot_pages_kept", "Rendered snapshot pages kept.", value=len(pages))
        yield GaugeMetricFamily(
            "nufi_snapshot_pages_kept_bytes", "Bytes of the rendered snapshot pages kept.", value=pages.bytes
        )


class _MonitoringCollector(Collector):
    """The monitoring refreshers of this replica, read when /metrics is scraped."""

    def __init__(self) -> None:
        self.service: MonitoringService | None = None

    def collect(self) -> Iterator[Metric]:
        entries = self.service.stats() if self.service is not None else []
        yield from _families("device_type", _MONITORING, [(e.device_type, e) for e in entries])
        duration = SummaryMetricFamily(
            "nufi_monitoring_evaluation_seconds",
            "Time one evaluation of a device type took.",
            labels=["device_type"],
        )
        for entry in entries:
            duration.add_metric([entry.device_type], entry.stats.evaluations, entry.stats.evaluation_seconds)
        yield duration


_MONITORING: tuple[_Series[TypeStats], ...] = (
    _Series(
        CounterMetricFamily,
        "nufi_monitoring_evaluations",
        "Evaluations of a device type's expressions.",
        lambda e: e.stats.evaluations,
    ),
    _Series(
        CounterMetricFamily,
        "nufi_monitoring_evaluation_failures",
        "Evaluations that Prometheus answered none of (the last good snapshot was served).",
        lambda e: e.stats.failures,
    ),
    _Series(
        CounterMetricFamily,
        "nufi_monitoring_reads",
        "Reads of a device type's snapshot (and stream waits).",
        lambda e: e.stats.reads,
    ),
    _Series(
        GaugeMetricFamily,
        "nufi_monitoring_refreshing",
        "1 while a device type is being evaluated in the background.",
        lambda e: 1 if e.refreshing else 0,
    ),
    _Series(
        GaugeMetricFamily,
        "nufi_monitoring_streams",
        "Open monitoring streams of a device type.",
        lambda e: e.open_streams,
    ),
    _Series(
        GaugeMetricFamily,
        "nufi_monitoring_stale_series",
        "Quantities listed as stale in the latest snapshot.",
        lambda e: e.stale_series,
    ),
    _Series(
        GaugeMetricFamily,
        "nufi_monitoring_remembered_series",
        "Series remembered between evaluations (the freshness window).",
        lambda e: e.remembered_series,
    ),
)


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    http_metrics: HttpMetrics = request.app.state.http_metrics
    return Response(http_metrics.render(), media_type=CONTENT_TYPE_LATEST)
