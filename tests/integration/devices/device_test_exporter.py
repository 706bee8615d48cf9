"""A small Prometheus exporter for device tests: fixed series in the shapes real exporters emit.

Series of one metric may carry different label sets (as DCGM's `Hostname`/`hostname` across versions
do), which the client library's Gauge cannot express, so a custom collector yields them as they are.
The exposition is always the classic text format, as the Go exporters serve it: the client library's
OpenMetrics output would rewrite the colons of names such as `RBLN_DEVICE_STATUS:UTILIZATION`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class Series:
    name: str
    labels: dict[str, str]
    value: float


class FixedSeries(Collector):
    """A collector that always reports the given series as gauges."""

    def __init__(self, series: Sequence[Series]) -> None:
        self._series = list(series)

    def collect(self) -> Iterable[Metric]:
        families: dict[str, Metric] = {}
        for item in self._series:
            family = families.setdefault(item.name, Metric(item.name, f"test series {item.name}", "gauge"))
            family.add_sample(item.name, item.labels, item.value)
        return list(families.values())


@contextmanager
def serving(series: Sequence[Series]) -> Iterator[str]:
    """Serve `series` at http://127.0.0.1:<free port>/metrics; yields "127.0.0.1:<port>"."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FixedSeries(series))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = generate_latest(registry)
            self.send_response(200)
            self.send_header("Content-Type", TEXT_FORMAT)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # scrapes every second would flood the test output

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="device-test-exporter", daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
