"""Request bodies of the API hold finite numbers only.

JSON has no NaN or infinity, but Python's decoder (FastAPI's) takes the tokens `NaN`, `Infinity`
and `-Infinity`, and reads a number too large for a float (`1e400`) as infinity. Such a value
passes a range check (NaN compares false with everything), is shown as `null`, and breaks whatever
computes with it later. This pure ASGI middleware reads every JSON body of the API as it streams to
the route: once the last part has arrived the whole body is decoded, and the first number that is
not finite is refused as a 422 naming its place in the body (`custom.trip_at`), like any other
field the request's model refuses. The models keep `allow_inf_nan=False` where they have floats, so
a value built in Python (a dashboard form) is refused the same way.

It sits inside the request guard, so the body it decodes is already bounded in size and its caller
authenticated. A body that is not JSON at all is left to FastAPI, which answers `json_invalid`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

API_PREFIX = "/api/"
# pydantic's own error type for a non-finite float where `allow_inf_nan=False`: one catalog code
# (`request.finite_number`) words both.
FINITE_NUMBER = "finite_number"
_UNPROCESSABLE = 422

Path = tuple[str | int, ...]


class NonFiniteNumber(HTTPException):
    """Raised from `receive` once the body is whole. An HTTPException because FastAPI turns any
    other error met while reading a body into a 400, but passes this one to its handler."""

    def __init__(self, path: Path, value: float) -> None:
        super().__init__(_UNPROCESSABLE)
        self.path = path
        self.value = value


def install_strict_json(app: FastAPI) -> None:
    """Add StrictJsonMiddleware, and the handler that answers its refusal as the app answers every
    other refused field (the RequestValidationError handler)."""

    async def non_finite(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, NonFiniteNumber)
        error = {
            "type": FINITE_NUMBER,
            "loc": ("body", *exc.path),
            "msg": "Input should be a finite number",
            "input": exc.value,
        }
        handler = request.app.exception_handlers[RequestValidationError]
        response: Response = await handler(request, RequestValidationError([error]))
        return response

    app.add_exception_handler(NonFiniteNumber, non_finite)
    app.add_middleware(StrictJsonMiddleware)


def first_non_finite(body: bytes) -> tuple[Path, float] | None:
    """Where the first number of `body` (in document order) that is NaN or infinite is, and its value;
    None when there is none, or when the body is not JSON (FastAPI refuses that itself)."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return next(_non_finite(document), None)


def _non_finite(document: object) -> Iterator[tuple[Path, float]]:
    # A stack, not recursion: a body may nest as deep as the decoder allows.
    stack: list[tuple[Path, object]] = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            yield path, value
        elif isinstance(value, dict):
            stack.extend(((*path, key), item) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in reversed(list(enumerate(value))))


def _is_json(headers: Headers) -> bool:
    kind = headers.get("content-type")
    if kind is None:
        return True
    media = kind.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class StrictJsonMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or not scope["path"].startswith(API_PREFIX)
            or not _is_json(Headers(scope=scope))
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def checked() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    found = first_non_finite(b"".join(chunks))
                    if found is not None:
                        raise NonFiniteNumber(*found)
            return message

        await self.app(scope, checked, send)
