"""Checks made before a request body is read: its size, and for the API the caller's credentials.

FastAPI reads and parses a body before it runs a route's dependencies, so left to itself an
anonymous caller could make NuFi receive and parse any amount of JSON, and a malformed body would be
answered 422 before authentication said 401. This pure ASGI middleware runs first:

- a body whose `Content-Length` exceeds the limit is refused with 413 before a byte of it is read;
  a body without one (chunked) is counted while it streams and refused once it exceeds the limit;
- a request to the API (`/api/...`) that carries a body is authenticated from its headers alone:
  anonymous or badly signed is 401, a non-admin on `/api/v1/admin/...` is 403, whatever the body.
  The verified principal is left in the request scope, where the route's dependency picks it up
  instead of verifying the token a second time (`nufi.api.auth`).
"""

from __future__ import annotations

from fastapi import FastAPI, Request, Response
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nufi.api.edge.http_only import HttpOnlyMiddleware
from nufi.api.problems import ProblemResponse, nufi_error_response, problem_response, request_id_of
from nufi.auth import Principal, authenticate, require_admin
from nufi.errors import NufiError
from nufi.services import Services

API_PREFIX = "/api/"
ADMIN_PREFIX = "/api/v1/admin/"
# Where the principal verified here waits for the route's dependency (scope["state"][...]).
PRINCIPAL_STATE_KEY = "nufi.principal"
_TOO_LARGE = 413


class BodyTooLarge(HTTPException):
    """Raised from `receive` once a streamed body passes the limit. An HTTPException because FastAPI
    turns any other error met while reading a body into a 400, but lets this one through to its
    handler (`install_request_guard`)."""

    def __init__(self, limit: int) -> None:
        super().__init__(_TOO_LARGE, headers={"Connection": "close"})
        self.limit = limit


def install_request_guard(app: FastAPI, *, max_body_bytes: int) -> None:
    """Add RequestGuardMiddleware, and the handler that answers a body cut off while streaming."""

    async def body_too_large(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, BodyTooLarge)
        return _too_large(exc.limit, request_id_of(request))

    app.add_exception_handler(BodyTooLarge, body_too_large)
    app.add_middleware(RequestGuardMiddleware, max_body_bytes=max_body_bytes)


def _too_large(limit: int, request_id: str | None) -> ProblemResponse:
    # The rest of the body is never read, so the connection cannot carry another request.
    return problem_response(
        status=_TOO_LARGE,
        type="content-too-large",
        code="request.too_large",
        request_id=request_id,
        headers={"Connection": "close"},
        extra={"limit_bytes": limit},
    )


class RequestGuardMiddleware(HttpOnlyMiddleware):
    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        super().__init__(app)
        self.max_body_bytes = max_body_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        state = scope.setdefault("state", {})
        request_id = state.get("request_id")
        request_id = request_id if isinstance(request_id, str) else None

        declared = _declared_length(headers)
        if declared is not None and declared > self.max_body_bytes:
            await _too_large(self.max_body_bytes, request_id)(scope, receive, send)
            return
        carries_body = bool(declared) or "transfer-encoding" in headers
        if carries_body and scope["path"].startswith(API_PREFIX):
            try:
                principal = await self._authenticate(scope, headers)
            except NufiError as exc:
                await nufi_error_response(exc, request_id)(scope, receive, send)
                return
            if principal is not None:
                state[PRINCIPAL_STATE_KEY] = principal
        if not carries_body:
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, _counting(receive, self.max_body_bytes), watched)
        except BodyTooLarge:
            # Raised where no exception handler saw it (an app reading the body by itself).
            if started:
                raise
            await _too_large(self.max_body_bytes, request_id)(scope, receive, send)

    async def _authenticate(self, scope: Scope, headers: Headers) -> Principal | None:
        services = getattr(getattr(scope.get("app"), "state", None), "services", None)
        if not isinstance(services, Services):
            # An app driven without its lifespan: the route's dependency reports that.
            return None
        principal = await authenticate(services.verifier, headers.getlist("authorization"))
        if scope["path"].startswith(ADMIN_PREFIX):
            require_admin(principal)
        return principal


def _declared_length(headers: Headers) -> int | None:
    # The server (uvicorn) has already refused a malformed or repeated Content-Length.
    value = headers.get("content-length")
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _counting(receive: Receive, limit: int) -> Receive:
    received = 0

    async def counted() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise BodyTooLarge(limit)
        return message

    return counted


def verified_principal(scope: Scope) -> Principal | None:
    """The principal RequestGuardMiddleware verified for this request, if it did."""
    principal = scope.get("state", {}).get(PRINCIPAL_STATE_KEY)
    return principal if isinstance(principal, Principal) else None
