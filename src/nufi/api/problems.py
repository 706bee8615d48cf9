"""RFC 9457 problem details: the body of every 4xx/5xx answer.

`type` is a short slug (a relative URI reference), `title` is fixed per type, `detail` is written
for the person reading it, `code` and `params` are the same sentence as data (`docs/messages.md`),
and extra members (`field`, `dependency`, `errors`, `request_id`, ...) carry what a program needs.

`title` and `detail` are in the caller's language: Korean when `Accept-Language` puts Korean first,
English otherwise (`RequestContextMiddleware` reads the header once per request).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
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
from nufi.messages import CATALOG, Language, Message, fields_of, preferred_language, render, title_of
from nufi.messages.validation import validation_message

PROBLEM_JSON = "application/problem+json"
_CORE_MEMBERS = frozenset({"type", "title", "status", "detail"})
_MAX_INPUT_REPR = 80
# An API caller who names no language NuFi speaks reads English (the dashboard defaults to Korean).
API_DEFAULT_LANGUAGE: Language = "en"
_language: ContextVar[Language] = ContextVar("nufi_problem_language", default=API_DEFAULT_LANGUAGE)

_log = get_logger("nufi.api")


class ProblemResponse(JSONResponse):
    media_type = PROBLEM_JSON


def answer_language(accept_language: str | None) -> Language:
    """The language problems are answered in for a caller's `Accept-Language`."""
    return preferred_language(accept_language, default=API_DEFAULT_LANGUAGE)


@contextmanager
def speaking(language: Language) -> Iterator[None]:
    """Answer the problems raised within in `language` (set per request by the middleware)."""
    token = _language.set(language)
    try:
        yield
    finally:
        _language.reset(token)


def current_language() -> Language:
    return _language.get()


@dataclass(frozen=True)
class ProblemKind:
    """One kind of problem a part answers with; `title` is the English headline for a type the catalog
    has none for. What differs per answer (the request, the sentence's params, extra members) is given
    to `response` or `body`."""

    status: int
    type: str
    code: str
    title: str | None = None

    def response(
        self,
        request_id: str | None = None,
        *,
        params: Mapping[str, object] | None = None,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, object] | None = None,
        language: Language | None = None,
    ) -> ProblemResponse:
        body = self.body(request_id, params=params, extra=extra, language=language)
        return ProblemResponse(body, status_code=self.status, headers=dict(headers or {}))

    def body(
        self,
        request_id: str | None = None,
        *,
        params: Mapping[str, object] | None = None,
        extra: Mapping[str, object] | None = None,
        language: Language | None = None,
    ) -> dict[str, Any]:
        """The body: its sentence is `code` from the catalogs, filled from `extra` and `params`."""
        language = language or current_language()
        values = {
            key: value for key, value in {**(extra or {}), **(params or {})}.items() if value is not None
        }
        template = CATALOG[language][self.code]
        # `params` holds what the sentence names and the caller's own params; the other extra members
        # stand in the body on their own.
        wanted = fields_of(template) | set(params or {})
        named = {key: value for key, value in values.items() if key in wanted}
        body: dict[str, Any] = {
            "type": self.type,
            "title": title_of(language, self.type, self.title or _phrase(self.status)),
            "status": self.status,
            "detail": render(language, self.code, values),
            "code": self.code,
            "params": jsonable_encoder(Message(self.code, named).to_data()["params"]),
        }
        for key, value in (extra or {}).items():
            # Extra members describe the problem; they may not rewrite its core members.
            if key not in _CORE_MEMBERS and value is not None:
                body[key] = jsonable_encoder(value)
        if request_id is not None:
            body["request_id"] = request_id
        return body


def problem_response(
    *,
    status: int,
    type: str,
    code: str,
    params: Mapping[str, object] | None = None,
    title: str | None = None,
    request_id: str | None = None,
    headers: Mapping[str, str] | None = None,
    extra: Mapping[str, object] | None = None,
    language: Language | None = None,
) -> ProblemResponse:
    """A problem answer of a kind named in place (`ProblemKind.response` for one named once)."""
    kind = ProblemKind(status, type, code, title)
    return kind.response(request_id, params=params, headers=headers, extra=extra, language=language)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def error_body(error: NufiError, request_id: str | None = None) -> dict[str, Any]:
    """The problem body of a domain error, for answers that are not a response of their own (events)."""
    kind = ProblemKind(error.status, error.type, error.code, error.title)
    return kind.body(request_id, params=error.own_params, extra=error.extra)


def request_id_of(request: Request) -> str | None:
    value = getattr(request.state, "request_id", None)
    return value if isinstance(value, str) else None


def request_id_in(scope: Scope) -> str | None:
    """`request_id_of` for an ASGI app that has the scope, not a Request."""
    value = (scope.get("state") or {}).get("request_id")
    return value if isinstance(value, str) else None


def internal_error_response(request_id: str | None) -> ProblemResponse:
    return problem_response(
        status=500,
        type="internal-error",
        code="internal.unexpected",
        params={"request_id": request_id or "-"},
        request_id=request_id,
    )


def nufi_error_response(exc: NufiError, request_id: str | None) -> ProblemResponse:
    """The problem a domain error is answered with, wherever it is caught (handler or middleware)."""
    if exc.status >= 500:
        _log.warning("request failed", problem=exc.type, code=exc.code, detail=exc.detail)
    headers: dict[str, str] = {}
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = bearer_challenge(exc)
    if isinstance(exc, DependencyUnavailable):
        headers["Retry-After"] = str(exc.retry_after_seconds)
    return ProblemResponse(error_body(exc, request_id), status_code=exc.status, headers=headers)


async def _nufi_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, NufiError)
    return nufi_error_response(exc, request_id_of(request))


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    language = current_language()
    errors = [_describe_validation_error(e, language) for e in exc.errors()]
    if not errors:
        errors = [_described("request", "request", "request.other", {}, language)]
    first = errors[0]
    params: dict[str, object] = {
        "location": _location(first["location"]),
        "field": first["field"],
        # As a message, not its words: params are the same data in every language.
        "reason": _reason(first["code"], first["params"]),
    }
    if len(errors) > 1:
        params["more"] = len(errors) - 1
    return problem_response(
        status=422,
        type="validation-failed",
        code="request.invalid_more" if len(errors) > 1 else "request.invalid",
        params=params,
        request_id=request_id_of(request),
        extra={"field": first["field"], "errors": errors},
    )


def _describe_validation_error(error: Mapping[str, Any], language: Language) -> dict[str, Any]:
    loc: Sequence[object] = error.get("loc") or ()
    location = str(loc[0]) if loc else "request"
    field = ".".join(str(part) for part in loc[1:]) or location
    message = validation_message(error)
    code, params = message.code, dict(message.params)
    shown = _shown_input(error["input"]) if error.get("type") != "missing" and "input" in error else None
    if shown is not None:
        params = {**params, "input": shown}
    return _described(field, location, code, params, language)


def _shown_input(value: object) -> str | None:
    """What the caller sent, in the notation they wrote it in: JSON's (`true`, `null`, `[1, 2]`), a
    string in quotes; never Python's. An object is not repeated: the field names it, and its reason
    names what in it is wrong."""
    if isinstance(value, Mapping):
        return None
    shown = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return shown if len(shown) <= _MAX_INPUT_REPR else shown[: _MAX_INPUT_REPR - 3] + "..."


def _reason(code: str, params: Mapping[str, object]) -> dict[str, object]:
    own = {key: value for key, value in params.items() if key != "input"}
    reason = Message(code, own)
    if "input" in params:
        return Message("request.got", {"reason": reason, "input": params["input"]}).to_data()
    return reason.to_data()


def _location(location: str) -> object:
    """Where in the request a field is, as a message of its own when the catalogs name the place."""
    code = f"request.location.{location}"
    return Message(code).to_data() if code in CATALOG[API_DEFAULT_LANGUAGE] else location


def _described(
    field: str, location: str, code: str, params: Mapping[str, object], language: Language
) -> dict[str, Any]:
    message = render(language, code, params)
    if "input" in params:
        message = render(language, "request.got", {"reason": message, "input": params["input"]})
    return {"field": field, "location": location, "message": message, "code": code, "params": dict(params)}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    phrase = _phrase(status)
    extra: dict[str, object] = {}
    headers = dict(exc.headers or {})
    params: dict[str, object] = {"method": request.method, "path": request.url.path, "status": status}
    if status == 405:
        # Starlette names the methods of the first route on the path only; the path may be served
        # by several (GET in one router, PUT in another).
        headers["Allow"] = ", ".join(allowed_methods(request.app.router.routes, request.scope))
    if status == 404:
        code = "http.not_found"
    elif status == 405:
        code = "http.method_not_allowed"
    else:
        code = "http.status"
        if exc.detail is not None and not isinstance(exc.detail, str):
            extra["errors"] = exc.detail
    return problem_response(
        status=status,
        type=phrase.lower().replace(" ", "-").replace("'", ""),
        code=code,
        params=params,
        title=phrase,
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
