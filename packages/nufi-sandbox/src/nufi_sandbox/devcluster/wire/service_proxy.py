"""`/api/v1/namespaces/{ns}/services/{id}/proxy[/{path}]`: the API server's services proxy subresource.

HTTP is forwarded with httpx, bodies streamed both ways, WebSocket upgrades with the websockets
library. The backend sees exactly the path after `/proxy` and the query string; hop-by-hop headers and
the caller's credentials stay behind, as with the real API server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from http import HTTPStatus
from http.cookiejar import CookieJar, DefaultCookiePolicy

import httpx
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.storage.store import Store
from nufi_sandbox.devcluster.wire.proxy_target import (
    Backend,
    LocalPorts,
    ProxyResolver,
    parse_service_id,
    unavailable,
)

log = logging.getLogger(__name__)

PREFIX = "/api/v1/namespaces/{namespace}/services/{service}/proxy"
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
# Never passed on: the caller's credentials for the API server, and what the client library sets.
_REQUEST_DROPPED = frozenset({"authorization", "host"})
_WS_DROPPED = frozenset(
    {
        "sec-websocket-key",
        "sec-websocket-version",
        "sec-websocket-extensions",
        "sec-websocket-protocol",
        "sec-websocket-accept",
        "origin",
    }
)


def _forwardable(headers: Iterable[tuple[str, str]], dropped: frozenset[str]) -> list[tuple[str, str]]:
    pairs = list(headers)
    named = {
        token.strip().lower()
        for key, value in pairs
        if key.lower() == "connection"
        for token in value.split(",")
    }
    return [
        (key, value)
        for key, value in pairs
        if key.lower() not in HOP_BY_HOP and key.lower() not in dropped and key.lower() not in named
    ]


def _backend_target(raw_path: bytes, query: bytes) -> str:
    """What follows `/proxy` in the raw request path (at least `/`), with the query string."""
    # /api/v1/namespaces/{ns}/services/{id}/proxy/...: the routes matched these segments already.
    segments = raw_path.decode("latin-1").split("/")
    target = "/" + "/".join(segments[8:])
    return f"{target}?{query.decode('latin-1')}" if query else target


def _status(error: errors.ApiError) -> JSONResponse:
    return JSONResponse(error.status(), status_code=error.code)


class ServiceProxy:
    def __init__(self, store: Store, local_ports: LocalPorts | None) -> None:
        self.resolver = ProxyResolver(store, local_ports)
        # No read timeout: event streams and long polls go through here too. A jar that refuses every
        # cookie: the client is shared by all callers, and a cookie one backend sets for one caller
        # (a lab's session) must never ride along on another caller's request.
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(None, connect=5.0),
            cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),
        )

    def routes(self) -> list[BaseRoute]:
        return [
            Route(PREFIX, self.http, methods=METHODS),
            Route(PREFIX + "/{path:path}", self.http, methods=METHODS),
            WebSocketRoute(PREFIX, self.websocket),
            WebSocketRoute(PREFIX + "/{path:path}", self.websocket),
        ]

    async def aclose(self) -> None:
        await self._client.aclose()

    def _backend(self, namespace: str, service: str) -> tuple[Backend, int]:
        backend = self.resolver.resolve(namespace, parse_service_id(service))
        if backend.local_port is None:
            raise unavailable(
                f"error trying to reach service: dial tcp {backend.address}:{backend.port}: pod "
                f"{backend.pod_namespace}/{backend.pod_name} has no local process (its image is not "
                "in the dev cluster's runtime map)"
            )
        return backend, backend.local_port

    # -- HTTP ----------------------------------------------------------------------------------------

    async def http(self, request: Request) -> Response:
        try:
            _, port = self._backend(request.path_params["namespace"], request.path_params["service"])
        except errors.ApiError as exc:
            return _status(exc)
        target = _backend_target(request.scope["raw_path"], request.scope.get("query_string", b""))
        headers = _forwardable(request.headers.items(), _REQUEST_DROPPED)
        has_body = "content-length" in request.headers or "transfer-encoding" in request.headers
        upstream_request = self._client.build_request(
            request.method,
            f"http://127.0.0.1:{port}{target}",
            headers=headers,
            content=request.stream() if has_body else None,
        )
        try:
            upstream = await self._client.send(upstream_request, stream=True)
        except httpx.ConnectError:
            return _status(
                unavailable(
                    f"error trying to reach service: dial tcp 127.0.0.1:{port}: connect: connection refused"
                )
            )
        except httpx.HTTPError as exc:
            return _status(unavailable(f"error trying to reach service: {exc}"))
        response = StreamingResponse(
            upstream.aiter_raw(), status_code=upstream.status_code, background=BackgroundTask(upstream.aclose)
        )
        response.raw_headers = [
            (key.encode("latin-1"), value.encode("latin-1"))
            for key, value in _forwardable(upstream.headers.multi_items(), frozenset())
        ]
        return response

    # -- WebSocket -----------------------------------------------------------------------------------

    async def websocket(self, websocket: WebSocket) -> None:
        try:
            _, port = self._backend(websocket.path_params["namespace"], websocket.path_params["service"])
        except errors.ApiError as exc:
            await _refuse(websocket, exc)
            return
        target = _backend_target(websocket.scope["raw_path"], websocket.scope.get("query_string", b""))
        headers = _forwardable(websocket.headers.items(), _REQUEST_DROPPED | _WS_DROPPED)
        origin = websocket.headers.get("origin")
        try:
            upstream = await connect(
                f"ws://127.0.0.1:{port}{target}",
                subprotocols=websocket.scope.get("subprotocols") or None,
                additional_headers=headers,
                origin=origin,  # type: ignore[arg-type]
                compression=None,
                max_size=None,
                open_timeout=5,
            )
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            if isinstance(exc, InvalidStatus):
                # The backend's own refusal (403 for a bad origin, 404...) reaches the caller as such.
                code = exc.response.status_code
                known = code in {status.value for status in HTTPStatus}
                reason = HTTPStatus(code).phrase.replace(" ", "") if known else "Unknown"
                refusal = errors.ApiError(code, reason, f"error trying to reach service: {exc}")
            else:
                refusal = unavailable(f"error trying to reach service: {exc}")
            await _refuse(websocket, refusal)
            return
        async with upstream:
            await websocket.accept(subprotocol=upstream.subprotocol)
            await _pump(websocket, upstream)


async def _refuse(websocket: WebSocket, error: errors.ApiError) -> None:
    """Answer the upgrade request with the error's HTTP status and Status body, as the API server does."""
    log.info("services proxy websocket refused: %s", error.message)
    try:
        await websocket.send_denial_response(_status(error))
    except RuntimeError:  # a server without the denial-response extension can only close
        await websocket.close(code=1011, reason=error.message[:120])


async def _pump(websocket: WebSocket, upstream: ClientConnection) -> None:
    async def downstream() -> None:
        try:
            async for message in upstream:
                if isinstance(message, bytes):
                    await websocket.send_bytes(message)
                else:
                    await websocket.send_text(message)
        except ConnectionClosed:
            pass
        code = upstream.close_code or 1000
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            await websocket.close(code=code if code != 1005 else 1000)

    async def upstream_side() -> None:
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    await upstream.close(code=int(message.get("code") or 1000))
                    return
                if message.get("bytes") is not None:
                    await upstream.send(message["bytes"])
                elif message.get("text") is not None:
                    await upstream.send(message["text"])
        except ConnectionClosed:
            return

    tasks = [asyncio.create_task(downstream()), asyncio.create_task(upstream_side())]
    _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    for task in pending:
        with contextlib.suppress(asyncio.CancelledError):
            await task
