"""A WebSocket upgrade the application neither accepts nor refuses is closed once the header deadline
passes, as a request whose headers never end is; one it accepts is left to the WebSocket protocol.
uvicorn with NuFi's protocol (`nufi.api.edge.connection_deadlines`) on loopback, a raw socket as client."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from starlette.types import Receive, Scope, Send

from nufi.api.edge.connection_deadlines import RequestDeadlines, deadline_protocol
from support.loopback import serve_in_thread

HEADER_SECONDS = 1.0
# Far above the deadline: reaching it means the server never closed the connection.
BOUND = 30.0


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """Holds `/held` sockets unanswered for ever; accepts `/accepted` ones and keeps them open."""
    if scope["type"] != "websocket":
        return
    await receive()  # websocket.connect
    if scope["path"] == "/accepted":
        await send({"type": "websocket.accept"})
    await asyncio.Event().wait()


@pytest.fixture(scope="module")
def address() -> Iterator[tuple[str, int]]:
    deadlines = RequestDeadlines(header_seconds=HEADER_SECONDS, body_seconds=5, body_min_bytes_per_second=500)
    # uvicorn's WebSocket implementation as `nufi serve` picks it (`auto`).
    with serve_in_thread(app, name="websocket-deadlines", http=deadline_protocol(deadlines)) as url:
        parts = urlsplit(url)
        yield str(parts.hostname), int(parts.port or 0)


def upgrade(address: tuple[str, int], path: str) -> socket.socket:
    sock = socket.create_connection(address, timeout=BOUND)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    received = b""
    deadline = time.monotonic() + BOUND
    while True:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            pytest.fail(f"the connection is still open after {BOUND} s (received {received[:200]!r})")
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def test_an_upgrade_the_application_never_answers_is_closed(address: tuple[str, int]) -> None:
    with upgrade(address, "/held") as sock:
        assert read_until_closed(sock) == b""


def test_an_accepted_socket_outlives_the_header_deadline(address: tuple[str, int]) -> None:
    with upgrade(address, "/accepted") as sock:
        sock.settimeout(BOUND)
        assert sock.recv(65536).startswith(b"HTTP/1.1 101")
        # Held past several deadlines: nothing closes it, so the read times out rather than ending.
        sock.settimeout(4 * HEADER_SECONDS)
        with pytest.raises(TimeoutError):
            sock.recv(65536)
