"""Over a real socket: a body announced far above the limit is refused from its headers, before the
client has sent it, and an anonymous body is refused before it is read."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from nufi.api import create_app

from .idp_support import nufi_settings

LIMIT = 64 * 1024
ANNOUNCED = 200 * 1024 * 1024


@pytest.fixture
def nufi_port() -> Iterator[int]:
    """NuFi (no issuer configured, so nobody is signed in) served by uvicorn on a loopback port."""
    app = create_app(nufi_settings(max_request_body_bytes=LIMIT))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="nufi-guard", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "NuFi did not start"
        time.sleep(0.02)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def exchange(port: int, head: str, body: bytes) -> tuple[int, dict[str, str], dict[str, object]]:
    """Send a request head and `body` (which may be far shorter than announced); the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.encode("latin-1") + b"\r\n" + body)
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), timeout=5)
        headers: dict[str, str] = {}
        while (line := await asyncio.wait_for(reader.readline(), timeout=5)) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        payload = await asyncio.wait_for(reader.readexactly(int(headers["content-length"])), timeout=5)
    finally:
        writer.close()
    return int(status_line.split()[1]), headers, json.loads(payload)


def request_head(path: str, *headers: str) -> str:
    lines = [f"POST {path} HTTP/1.1", "Host: nufi.test", "Content-Type: application/json", *headers]
    return "".join(f"{line}\r\n" for line in lines)


async def test_a_huge_announced_body_is_413_while_only_a_few_bytes_were_sent(nufi_port: int) -> None:
    head = request_head("/api/v1/admin/devices", f"Content-Length: {ANNOUNCED}")
    status, headers, problem = await exchange(nufi_port, head, b'{"id"')
    assert status == 413
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert problem["type"] == "content-too-large"
    assert problem["limit_bytes"] == LIMIT


async def test_an_anonymous_body_below_the_limit_is_401_before_it_is_complete(nufi_port: int) -> None:
    # Half the announced body is sent: answering proves the server did not wait to read the rest.
    head = request_head("/api/v1/admin/devices", f"Content-Length: {LIMIT}")
    status, headers, problem = await exchange(nufi_port, head, b" " * (LIMIT // 2))
    assert status == 401
    assert headers["www-authenticate"] == "Bearer"
    assert problem["type"] == "unauthorized"
