"""Deadlines for reading a request, so slow or idle connections cannot hold the server.

uvicorn closes a keep-alive connection left idle after a response (`timeout_keep_alive`), but not a
connection that was opened and never sent a request, nor one sending its headers or body a byte at a
time (slowloris): each such connection holds a socket and a parser for ever. This protocol is
uvicorn's httptools protocol with the two deadlines Apache's mod_reqtimeout enforces:

- the request line and headers must arrive within `header_seconds` of the connection opening, or of
  the request's first byte on a kept-alive connection;
- the body must arrive within `body_seconds` of the headers, a deadline that each chunk received
  extends by its size over `body_min_bytes_per_second`: a large upload that keeps moving finishes,
  a body that trickles or stalls does not.

A WebSocket upgrade leaves these deadlines to the WebSocket protocol, but the application must
accept or refuse it within `header_seconds` of the upgrade, or the connection is closed.

Time the server itself holds the body back is not the client's: while reading is paused because
the application has not taken what arrived, or a `100-continue` is not answered yet, the deadline
waits. A request that misses its deadline is answered 408 when no answer has started, and its
connection closed.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState


@dataclass(frozen=True)
class RequestDeadlines:
    header_seconds: float
    body_seconds: float
    body_min_bytes_per_second: int


def deadline_protocol(deadlines: RequestDeadlines) -> type[HttpToolsProtocol]:
    """The protocol class to pass as uvicorn's `http` option."""

    class _Bound(DeadlineHttpProtocol):
        pass

    _Bound.deadlines = deadlines
    return _Bound


class DeadlineHttpProtocol(HttpToolsProtocol):
    deadlines = RequestDeadlines(header_seconds=20.0, body_seconds=20.0, body_min_bytes_per_second=500)

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._header_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._body_deadline = 0.0

    # Headers: from the connection's start, or a request's first byte, to the end of its headers.
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_timer is None:
            self._arm_header_deadline()

    def on_headers_complete(self) -> None:
        self._cancel_header_deadline()
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.scope is self.scope:
            # Disarmed again at once by on_message_complete when the request has no body.
            self._body_deadline = self.loop.time() + self.deadlines.body_seconds
            self._arm_body_timer()

    # Body: each chunk buys time in proportion to its size.
    def on_body(self, body: bytes) -> None:
        self._body_deadline += len(body) / self.deadlines.body_min_bytes_per_second
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._cancel_body_deadline()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        # The WebSocket protocol takes the connection over, with its own pings and timeouts; until the
        # application has accepted or refused the socket, the handshake is bound as headers are.
        self._cancel_header_deadline()
        self._cancel_body_deadline()
        super().handle_websocket_upgrade()
        self.loop.call_later(
            self.deadlines.header_seconds, _close_unanswered, self.transport.get_protocol(), self.transport
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_deadline()
        self._cancel_body_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        self._header_timer = self.loop.call_later(self.deadlines.header_seconds, self._headers_late)

    def _cancel_header_deadline(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _arm_body_timer(self) -> None:
        self._body_timer = self.loop.call_at(self._body_deadline, self._body_late)

    def _cancel_body_deadline(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        answering = self.cycle is not None and not self.cycle.response_complete
        # While an earlier (pipelined) answer is being written, a 408 would be cut into it.
        self._give_up(send_408=not answering)

    def _body_late(self) -> None:
        self._body_timer = None
        cycle = self.cycle
        now = self.loop.time()
        if now < self._body_deadline:
            # Chunks arrived since the timer was set and moved the deadline.
            self._arm_body_timer()
            return
        if self.flow.read_paused or cycle.waiting_for_100_continue:
            # The server, not the client, is holding the body back: wait as long again.
            self._body_deadline = now + self.deadlines.body_seconds
            self._arm_body_timer()
            return
        send_408 = not cycle.response_started
        # The application waiting for the rest of the body reads a disconnect instead.
        cycle.disconnected = True
        cycle.message_event.set()
        self._give_up(send_408=send_408)

    def _give_up(self, *, send_408: bool) -> None:
        if self.transport.is_closing():
            return
        if send_408:
            self.transport.write(_REQUEST_TIMEOUT)
        self.transport.close()


def _close_unanswered(protocol: asyncio.BaseProtocol, transport: asyncio.BaseTransport) -> None:
    if not transport.is_closing() and not _handshake_answered(protocol):
        transport.close()


def _handshake_answered(protocol: asyncio.BaseProtocol) -> bool:
    # uvicorn's WebSocket protocols keep it differently: an Event (websockets), a flag (wsproto, sansio).
    event = getattr(protocol, "handshake_completed_event", None)
    if isinstance(event, asyncio.Event):
        return event.is_set()
    return bool(getattr(protocol, "handshake_complete", True))


def _request_timeout_answer() -> bytes:
    body = json.dumps(
        {
            "type": "request-timeout",
            "title": "Request Timeout",
            "status": 408,
            "detail": "the request did not arrive in time; send it again without pausing",
        }
    ).encode()
    head = (
        "HTTP/1.1 408 Request Timeout\r\n"
        "content-type: application/problem+json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


_REQUEST_TIMEOUT = _request_timeout_answer()
