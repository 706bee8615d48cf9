"""RFC 9457 problem details: the body of every 4xx/5xx answer.

`type` is a short slug (a relative URI reference), `title` is fixed per type, `detail` is written
for the person reading it, and extra members (`field`, `dependency`, `errors`, `request_id`, ...)
carry what a program needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match
from starlette.types import Scope

from nufi.auth.errors import bearer_challenge
from nufi.errors import DependencyUnavailable, NufiError, Unauthorized
from nufi.logging import get_logger

PROBLEM_JSON = "application/problem+json"
_CORE_MEMBERS = frozenset({"type", "title", "status", "detail"})
_MAX_INPUT_REPR = 80

_log = get_logger("nufi.api")


class ProblemResponse(JSONResponse):
    media_type = PROBLEM_JSON


def problem_response(
    *,
    status: int,
    type: str,
    title: str,
    detail: str,
    request_id: str | None = None,
    headers: Mapping[str, str] | None = None,
    extra: Mapping[str, object] | None = None,
) -> ProblemResponse:
    body = problem_body(
        status=status, type=type, title=title, detail=detail, request_id=request_id, extra=extra
    )
    return ProblemResponse(body, status_code=status, headers=dict(headers or {}))


def problem_body(
    *,
    status: int,
    type: str,
    title: str,
    detail: str,
    request_id: str | None = None,
    extra: Mapping[str, object] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"type": type, "title": title, "status": status, "detail": detail}
    for key, value in (extra or {}).items():
        # Extra members describe the problem; they may not rewrite its core members.
        if key not in _CORE_MEMBERS and value is not None:
            body[key] = jsonable_encoder(value)
    if request_id is not None:
        body["request_id"] = request_id
    return body


def error_body(error: NufiError, request_id: str | None = None) -> dict[str, Any]:
    """The problem body of a domain error, for answers that are not a response of their own (events)."""
    return problem_body(
        status=error.status,
        type=error.type,
        title=error.title,
        detail=error.detail,
        request_id=request_id,
        extra=error.extra,
    )


def request_id_of(request: Request) -> str | None:
    value = getattr(request.state, "request_id", None)
    return value if isinstance(value, str) else None


def request_id_in(scope: Scope) -> str | None:
    """`request_id_of` for an ASGI app that has the scope, not a Request."""
    value = (scope.get("state") or {}).get("request_id")
    return value if isinstance(value, str) else None


def internal_error_response(request_id: str | None) -> ProblemResponse:
    reference = f" (request id {request_id})" if request_id else ""
    return problem_response(
        status=500,
        type="internal-error",
        title="Internal error",
        detail=f"NuFi hit an unexpected error{reference}. It has been logged; "
        "retry, and report the request id if it keeps happening.",
        request_id=request_id,
    )


def nufi_error_response(exc: NufiError, request_id: str | None) -> ProblemResponse:
    """The problem a domain error is answered with, wherever it is caught (handler or middleware)."""
    if exc.status >= 500:
        _log.warning("request failed", problem=exc.type, detail=exc.detail)
    headers: dict[str, str] = {}
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = bearer_challenge(exc)
    if isinstance(exc, DependencyUnavailable):
        headers["Retry-After"] = str(exc.retry_after_seconds)
    return problem_response(
        status=exc.status,
        type=exc.type,
        title=exc.title,
        detail=exc.detail,
        request_id=request_id,
        headers=headers,
        extra=exc.extra,
    )


async def _nufi_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, NufiError)
    return nufi_error_response(exc, request_id_of(request))


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = [_describe_validation_error(e) for e in exc.errors()]
    if not errors:
        errors = [{"field": "request", "location": "request", "message": "the request is invalid"}]
    first = errors[0]
    detail = f"{first['location']} field {first['field']!r}: {first['message']}"
    if len(errors) > 1:
        detail += f" (and {len(errors) - 1} more problem(s), listed in 'errors')"
    return problem_response(
        status=422,
        type="validation-failed",
        title="Validation failed",
        detail=detail,
        request_id=request_id_of(request),
        extra={"field": first["field"], "errors": errors},
    )


def _describe_validation_error(error: Mapping[str, Any]) -> dict[str, str]:
    loc: Sequence[object] = error.get("loc") or ()
    location = str(loc[0]) if loc else "request"
    field = ".".join(str(part) for part in loc[1:]) or location
    message = str(error.get("msg") or "is invalid")
    if error.get("type") != "missing" and "input" in error:
        shown = repr(error["input"])
        if len(shown) > _MAX_INPUT_REPR:
            shown = shown[: _MAX_INPUT_REPR - 3] + "..."
        message += f" (got {shown})"
    return {"field": field, "location": location, "message": message}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    extra: dict[str, object] = {}
    headers = dict(exc.headers or {})
    if status == 405:
        # Starlette names the methods of the first route on the path only; the path may be served
        # by several (GET in one router, PUT in another).
        headers["Allow"] = ", ".join(allowed_methods(request.app.router.routes, request.scope))
    if isinstance(exc.detail, str) and exc.detail and exc.detail != phrase:
        detail = exc.detail
    elif status == 404:
        detail = f"Nothing at {request.method} {request.url.path}; the API is described at /docs."
    elif status == 405:
        detail = f"{request.method} is not allowed on {request.url.path}; see the Allow header."
    else:
        detail = phrase
        if exc.detail is not None and not isinstance(exc.detail, str):
            extra["errors"] = exc.detail
    return problem_response(
        status=status,
        type=phrase.lower().replace(" ", "-").replace("'", ""),
        title=phrase,
        detail=detail,
        request_id=request_id_of(request),
        headers=headers,
        extra=extra,
    )


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> list[str]:
    """Every method some route serves on the path of `scope`: each method is tried against every
    route, so routes nested in included routers count too."""
    return [
        method
        for method in _METHODS
        if any(route.matches({**scope, "method": method})[0] is Match.FULL for route in routes)
    ]


def install_problem_handlers(app: FastAPI) -> None:
    """Route domain, validation and HTTP errors to problem bodies.

    Unexpected exceptions are answered by RequestContextMiddleware, which sees them first and can
    still count and log them against the request.
    """
    app.add_exception_handler(NufiError, _nufi_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
