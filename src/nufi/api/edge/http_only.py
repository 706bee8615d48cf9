"""The shape of the edge's HTTP-only middleware: any other scope passes straight on to the app."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpOnlyMiddleware:
    """A pure ASGI middleware that acts on HTTP requests alone. A WebSocket's frames carry no headers
    a browser acts on and no body the guard would count, and its handshake answer is the server's, so
    WebSocket and lifespan scopes go to the wrapped app untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError
