"""NuFi's own Prometheus metrics: HTTP traffic plus process facts, served at /metrics.

Each app owns its registry, so several apps in one process (tests, embedded use) never collide.
"""

from __future__ import annotations

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

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        # Unbounded label values (raw paths, made-up methods) would grow the series count forever.
        method_label = method if method in _KNOWN_METHODS else "OTHER"
        status_label = str(status)
        self._requests.labels(method_label, route, status_label).inc()
        self._duration.labels(method_label, route, status_label).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    http_metrics: HttpMetrics = request.app.state.http_metrics
    return Response(http_metrics.render(), media_type=CONTENT_TYPE_LATEST)
