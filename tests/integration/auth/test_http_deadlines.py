"""Slow and idle connections against `nufi serve`, over raw sockets: a connection that sends nothing,
headers or a body that trickle, a body that stalls and a kept-alive connection left idle are all
closed; an upload that keeps moving is answered. "Closed" is polled with a bound far above the
limits, so only a connection that is never closed fails."""

from __future__ import annotations

import itertools
import json
import select
import socket
import time
from collections.abc import Iterator

import pytest

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.nufi_serve import nufi_serve

# Far above every limit below: reaching it means the server never closed the connection.
BOUND = 60.0
LIMITS = {
    "NUFI_HTTP_HEADER_TIMEOUT_SECONDS": "2",
    "NUFI_HTTP_BODY_TIMEOUT_SECONDS": "2",
    "NUFI_HTTP_BODY_MIN_BYTES_PER_SECOND": "1000",
    "NUFI_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS": "2",
}


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, idp: IdentityProviderProcess
) -> Iterator[tuple[str, int]]:
    with nufi_serve(tmp_path_factory.mktemp("serve"), NUFI_OIDC_ISSUER=idp.issuer, **LIMITS) as address:
        yield address


@pytest.fixture(scope="module")
def admin_token(idp: IdentityProviderProcess) -> str:
    return idp.password_token("admin", "admin-pw")


def connect(address: tuple[str, int]) -> socket.socket:
    return socket.create_connection(address, timeout=BOUND)


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection; fails if it is still open after
    BOUND seconds."""
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


def trickle_until_closed(sock: socket.socket, data: Iterator[bytes]) -> bytes:
    """Send `data` a piece at a time, a tenth of a second apart, until the server closes the
    connection; what it sent before closing."""
    received = b""
    deadline = time.monotonic() + BOUND
    for piece in data:
        if time.monotonic() > deadline:
            pytest.fail(f"the connection is still open after {BOUND} s of trickling")
        try:
            sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            return received
        readable, _, _ = select.select([sock], [], [], 0.1)
        if readable:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return received
            if not chunk:
                return received
            received += chunk
    raise AssertionError("unreachable: the data is endless")


def endless_headers() -> Iterator[bytes]:
    yield from (bytes([b]) for b in b"GET /healthz HTTP/1.1\r\nHost: nufi.test\r\n")
    for n in itertools.count():
        yield from (bytes([b]) for b in f"X-Pad-{n}: x\r\n".encode())


def post_head(path: str, token: str, length: int) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: nufi.test\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def assert_timed_out_or_closed(received: bytes) -> None:
    assert received == b"" or received.startswith(b"HTTP/1.1 408 "), received[:200]


def test_a_connection_that_never_sends_a_request_is_closed(server: tuple[str, int]) -> None:
    with connect(server) as sock:
        assert_timed_out_or_closed(read_until_closed(sock))


def test_headers_sent_a_byte_at_a_time_are_cut_off(server: tuple[str, int]) -> None:
    with connect(server) as sock:
        assert_timed_out_or_closed(trickle_until_closed(sock, endless_headers()))


def test_a_stalled_body_is_answered_408_and_closed(server: tuple[str, int], admin_token: str) -> None:
    with connect(server) as sock:
        sock.sendall(post_head("/api/v1/admin/projects", admin_token, 1000) + b'{"name": ')
        received = read_until_closed(sock)
    assert received.startswith(b"HTTP/1.1 408 "), received[:200]
    head, _, body = received.partition(b"\r\n\r\n")
    assert b"application/problem+json" in head.lower()
    assert json.loads(body)["status"] == 408


def test_a_body_sent_a_byte_at_a_time_is_cut_off(server: tuple[str, int], admin_token: str) -> None:
    body = (bytes([b]) for b in itertools.cycle(b" "))
    with connect(server) as sock:
        sock.sendall(post_head("/api/v1/admin/projects", admin_token, 1_000_000))
        assert_timed_out_or_closed(trickle_until_closed(sock, body))


def test_an_idle_kept_alive_connection_is_closed(server: tuple[str, int]) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: nufi.test\r\n\r\n")
        received = read_until_closed(sock)
    assert received.startswith(b"HTTP/1.1 200 "), received[:200]


def test_an_upload_that_keeps_moving_is_answered(server: tuple[str, int], admin_token: str) -> None:
    # 40 KiB in 1 KiB pieces, 50 ms apart: slower than a network would send it, far above the
    # minimum rate, and longer in all than the body's initial time limit.
    payload = json.dumps({"name": "steady", "padding": "x" * (40 * 1024)}).encode()
    pieces = [payload[i : i + 1024] for i in range(0, len(payload), 1024)]
    with connect(server) as sock:
        sock.sendall(post_head("/api/v1/admin/projects", admin_token, len(payload)))
        for piece in pieces:
            sock.sendall(piece)
            time.sleep(0.05)
        sock.settimeout(BOUND)
        status_line = sock.makefile("rb").readline()
    status = int(status_line.split()[1])
    # The body arrived whole and was judged on its content (the padding is not a project field).
    assert status not in (408, 400), status_line
    assert 200 <= status < 500, status_line
