"""Small HTTP servers on 127.0.0.1 run in a thread of the test process, and ports nothing listens on."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from nufi_sandbox.processes import free_port


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    return free_port()


@contextmanager
def serve_in_thread(app: ASGIApp, *, name: str = "fake-server", **options: Any) -> Iterator[str]:
    """Run `app` with uvicorn on 127.0.0.1 and a free port (uvicorn's `options` beside); yields its
    base URL."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=1,
        **options,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        assert not thread.is_alive(), f"{name} did not stop"
