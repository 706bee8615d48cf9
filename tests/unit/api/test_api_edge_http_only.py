"""The edge's HTTP-only middleware hand a WebSocket or lifespan scope to the app they wrap untouched,
and act on an HTTP request themselves (the security headers are added to its answer)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nufi.api.edge.guard import RequestGuardMiddleware
from nufi.api.edge.http_only import HttpOnlyMiddleware
from nufi.api.edge.middleware import RequestContextMiddleware
from nufi.api.edge.security_headers import SecurityHeadersMiddleware
from nufi.api.metrics import HttpMetrics

EDGE: dict[str, Callable[[ASGIApp], HttpOnlyMiddleware]] = {
    "guard": lambda app: RequestGuardMiddleware(app, max_body_bytes=1),
    "request context": lambda app: RequestContextMiddleware(app, HttpMetrics()),
    "security headers": lambda app: SecurityHeadersMiddleware(app, issuer=None),
}


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Scope, Receive, Send]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls.append((scope, receive, send))
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b""})


async def _receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


@pytest.mark.parametrize("make", EDGE.values(), ids=EDGE.keys())
@pytest.mark.parametrize("kind", ["websocket", "lifespan"])
async def test_other_scopes_pass_untouched(make: Callable[[ASGIApp], HttpOnlyMiddleware], kind: str) -> None:
    inner = Recorder()
    scope: Scope = {"type": kind, "path": "/api/v1/me", "headers": [], "state": {}}
    before = dict(scope)
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    await make(inner)(scope, _receive, send)
    assert inner.calls == [(scope, _receive, send)]
    assert inner.calls[0][0] == before
    assert sent == []


async def test_an_http_request_is_the_middlewares_own() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {"type": "http", "method": "GET", "path": "/", "headers": [], "state": {}}
    await EDGE["security headers"](Recorder())(scope, _receive, send)
    start = next(message for message in sent if message["type"] == "http.response.start")
    assert (b"x-content-type-options", b"nosniff") in start["headers"]
