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

from nufi.api.labproxy import ROUTE_TEMPLATE as LAB_PROXY_PATH
from nufi.api.schemas.problem import (
    NOT_FOUND,
    RETRY_AFTER_HEADER,
    TOO_LARGE,
    UNAVAILABLE,
    VALIDATION,
    Problem,
    problem,
)

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


# The lab proxy is middleware (`nufi.api.labproxy`), not a route, so FastAPI cannot describe it.
_LAB_PROXY: dict[str, Any] = {
    "get": {
        "summary": "A lab's own pages and API, proxied (HTTP and WebSocket)",
        "description": "Members of the project only: a bearer token, or the dashboard's session cookie. "
        "Any method is passed on; the lab's answer comes back as the lab gives it.",
        "operationId": "lab_proxy",
        "tags": ["labs"],
        "parameters": [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in ("project", "name", "path")
        ],
        "responses": {
            "200": {"description": "The lab's answer.", "content": {"*/*": {}}},
            "302": {"description": "A browser page without a session: sent to sign in and back."},
            "307": {"description": "The lab serves under another prefix (a Kubeflow Notebook)."},
            "401": problem("No or an invalid token."),
            "403": problem("The caller is not a member of the project."),
            "404": NOT_FOUND,
            "502": problem("The lab does not answer: stopped, or still starting."),
        },
    }
}


def with_problems(document: dict[str, Any]) -> dict[str, Any]:
    document.setdefault("info", {})["x-response-bound-seconds"] = RESPONSE_BOUND_SECONDS
    document.setdefault("paths", {}).setdefault(LAB_PROXY_PATH, _LAB_PROXY)
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
