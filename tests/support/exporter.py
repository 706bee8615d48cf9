"""A Prometheus exporter in a thread of the test process, serving on a free loopback port.

The exposition is always the classic text format, as the Go exporters serve it: the client library's
OpenMetrics output would rewrite the colons of names such as `RBLN_DEVICE_STATUS:UTILIZATION`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CollectorRegistry, generate_latest

TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8"


@contextmanager
def serving_exposition(render: Callable[[], bytes], *, name: str = "test-exporter") -> Iterator[str]:
    """Serve what `render()` returns at http://127.0.0.1:<free port>/metrics; yields "127.0.0.1:<port>"."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = render()
            self.send_response(200)
            self.send_header("Content-Type", TEXT_FORMAT)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # scrapes every second would flood the test output

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def serving_registry(
    registry: CollectorRegistry, *, name: str = "test-exporter"
) -> AbstractContextManager[str]:
    """Serve the metrics of `registry`, as collected at each scrape."""
    return serving_exposition(lambda: generate_latest(registry), name=name)


def serving_text(exposition: str, *, name: str = "test-exporter") -> AbstractContextManager[str]:
    """Serve fixed exposition text."""
    body = exposition.encode()
    return serving_exposition(lambda: body, name=name)
