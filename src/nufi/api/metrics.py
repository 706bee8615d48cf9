"""NuFi's own Prometheus metrics: HTTP traffic plus process facts, served at /metrics.

Each app owns its registry, so several apps in one process (tests, embedded use) never collide.
"""

from __future__ import annotations

from collections.abc import Iterator

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
from nufi.monitoring import MonitoringService
from nufi.thermal.controller import ThermalController

THERMAL_STATES = ("normal", "hot", "stale")

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

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        # Unbounded label values (raw paths, made-up methods) would grow the series count forever.
        method_label = method if method in _KNOWN_METHODS else "OTHER"
        status_label = str(status)
        self._requests.labels(method_label, route, status_label).inc()
        self._duration.labels(method_label, route, status_label).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


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
        label = ["device_type"]
        evaluations = CounterMetricFamily(
            "nufi_monitoring_evaluations", "Evaluations of a device type's expressions.", labels=label
        )
        failures = CounterMetricFamily(
            "nufi_monitoring_evaluation_failures",
            "Evaluations that Prometheus answered none of (the last good snapshot was served).",
            labels=label,
        )
        duration = SummaryMetricFamily(
            "nufi_monitoring_evaluation_seconds", "Time one evaluation of a device type took.", labels=label
        )
        reads = CounterMetricFamily(
            "nufi_monitoring_reads", "Reads of a device type's snapshot (and stream waits).", labels=label
        )
        refreshing = GaugeMetricFamily(
            "nufi_monitoring_refreshing",
            "1 while a device type is being evaluated in the background.",
            labels=label,
        )
        streams = GaugeMetricFamily(
            "nufi_monitoring_streams", "Open monitoring streams of a device type.", labels=label
        )
        stale = GaugeMetricFamily(
            "nufi_monitoring_stale_series", "Quantities listed as stale in the latest snapshot.", labels=label
        )
        remembered = GaugeMetricFamily(
            "nufi_monitoring_remembered_series",
            "Series remembered between evaluations (the freshness window).",
            labels=label,
        )
        for entry in self.service.stats() if self.service is not None else ():
            values = [entry.device_type]
            evaluations.add_metric(values, entry.stats.evaluations)
            failures.add_metric(values, entry.stats.failures)
            duration.add_metric(values, entry.stats.evaluations, entry.stats.evaluation_seconds)
            reads.add_metric(values, entry.stats.reads)
            refreshing.add_metric(values, 1 if entry.refreshing else 0)
            streams.add_metric(values, entry.open_streams)
            stale.add_metric(values, entry.stale_series)
            remembered.add_metric(values, entry.remembered_series)
        yield from (evaluations, failures, duration, reads, refreshing, streams, stale, remembered)


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    http_metrics: HttpMetrics = request.app.state.http_metrics
    return Response(http_metrics.render(), media_type=CONTENT_TYPE_LATEST)
