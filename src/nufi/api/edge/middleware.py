"""Per-request context: request id, access log, HTTP metrics, and the last-resort 500 answer.

A pure ASGI middleware (not BaseHTTPMiddleware) so streaming responses pass through untouched and
contextvars bound here are visible to the endpoint.
"""

from __future__ import annotations

import logging
import re
from random import getrandbits
from time import perf_counter

import structlog
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nufi.api.edge.http_only import HttpOnlyMiddleware
from nufi.api.metrics import HttpMetrics
from nufi.api.problems import answer_language, internal_error_response, speaking
from nufi.logging import get_logger

REQUEST_ID_HEADER = "X-Request-ID"
# A caller-supplied id is kept only when it cannot smuggle anything into logs or headers.
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# Probes and scrapes arrive every few seconds, and so do the reads of every open monitoring page:
# logging each answered one at INFO would bury everything else (they are logged at DEBUG; failures are not).
_QUIET_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
_POLLED_ROUTES = frozenset({"/api/v1/monitoring/overview", "/api/v1/monitoring/{device_type_id}"})
UNMATCHED_ROUTE = "unmatched"

_access = get_logger("nufi.access")
# The standard logger behind it: asked first, so a quiet request costs nothing when DEBUG is off.
_access_debug = logging.getLogger("nufi.access")
_errors = get_logger("nufi.api")


class RequestContextMiddleware(HttpOnlyMiddleware):
    def __init__(self, app: ASGIApp, metrics: HttpMetrics) -> None:
        super().__init__(app)
        self.metrics = metrics

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        incoming = headers.get(REQUEST_ID_HEADER)
        request_id = incoming if incoming and _SAFE_REQUEST_ID.fullmatch(incoming) else _new_request_id()
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                started = True
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        began = perf_counter()
        language = answer_language(headers.get("accept-language"))
        with structlog.contextvars.bound_contextvars(request_id=request_id), speaking(language):
            try:
                await self.app(scope, receive, send_with_id)
            except Exception:
                _errors.exception("unhandled error", method=scope["method"], path=scope["path"])
                if started:
                    # Headers are out; the only honest signal left is a broken connection.
                    raise
                await internal_error_response(request_id)(scope, receive, send_with_id)
            finally:
                seconds = perf_counter() - began
                route = _route_template(scope)
                self.metrics.observe(scope["method"], route, status, seconds)
                quiet = status < 400 and (scope["path"] in _QUIET_PATHS or route in _POLLED_ROUTES)
                if not quiet or _access_debug.isEnabledFor(logging.DEBUG):
                    log = _access.debug if quiet else _access.info
                    log(
                        "request",
                        method=scope["method"],
                        path=scope["path"],
                        route=route,
                        status=status,
                        duration_ms=round(seconds * 1000, 2),
                        client=_client(scope),
                    )


def _new_request_id() -> str:
    # 128 random bits as 32 hex digits, like a UUID4's; an id names a request, it guards nothing, so
    # the fast generator serves (uuid4 asks the kernel for entropy on every request).
    return f"{getrandbits(128):032x}"


def _route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else UNMATCHED_ROUTE


def _client(scope: Scope) -> str | None:
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else None
