"""The OpenAPI document: FastAPI's, with every error body documented as problem+json.

Routes reference the `Problem` schema (see `nufi.api.schemas.problem`); this adds it to the
components and replaces FastAPI's own 422 body (`HTTPValidationError`), which NuFi never sends:
validation errors are answered as problems (`nufi.api.problems`). Operations that take a body
also document the 413 their size limit may answer, and every operation the 503 (with `Retry-After`)
a dependency that cannot serve is answered with.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from nufi.api.schemas.problem import RETRY_AFTER_HEADER, TOO_LARGE, UNAVAILABLE, VALIDATION, Problem

_FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")


def install_openapi(app: FastAPI) -> None:
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = with_problems(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


# The slowest answer any operation gives, streams aside: its dependencies' timeouts (Kubernetes 5 s per
# call, Prometheus 10 s) times the few calls an operation makes, with the defaults of the settings.
RESPONSE_BOUND_SECONDS = 30


def with_problems(document: dict[str, Any]) -> dict[str, Any]:
    document.setdefault("info", {})["x-response-bound-seconds"] = RESPONSE_BOUND_SECONDS
    schemas: dict[str, Any] = document.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = Problem.model_json_schema(mode="serialization")
    for name in _FASTAPI_VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    for path_item in document.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.get("responses", {})
            if "422" in responses and _is_fastapi_default(responses["422"]):
                responses["422"] = VALIDATION
            if "requestBody" in operation:
                # Every body passes RequestGuardMiddleware's size limit first.
                responses.setdefault("413", TOO_LARGE)
            # Any operation may meet a dependency that cannot serve (the database at the least).
            unavailable = responses.get("503", UNAVAILABLE)
            responses["503"] = {**unavailable, "headers": {"Retry-After": RETRY_AFTER_HEADER}}
    return document


def _is_fastapi_default(response: dict[str, Any]) -> bool:
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    return bool(schema.get("$ref", "").endswith("/HTTPValidationError"))
