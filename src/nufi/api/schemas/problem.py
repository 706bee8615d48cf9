"""The problem details body (RFC 9457) as the OpenAPI document describes it, and the error responses
each operation declares."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from nufi.api.problems import PROBLEM_JSON

PROBLEM_SCHEMA_REF = "#/components/schemas/Problem"

ResponseDocs = dict[int | str, dict[str, Any]]


class Problem(BaseModel):
    """The body of every 4xx/5xx answer; extra members carry what a program needs (`errors`,
    `dependency`, `resource_key`, `current_revision`, ...)."""

    model_config = ConfigDict(extra="allow", title="Problem")

    type: str = Field(description="a short slug naming the kind of problem, e.g. `not-found`")
    title: str = Field(description="fixed per type")
    status: int = Field(description="the HTTP status code")
    detail: str = Field(description="for the person reading it: the offending value and what to do")
    # Optional members are absent, never null.
    instance: str | SkipJsonSchema[None] = Field(default=None, description="the occurrence, when named")
    field: str | SkipJsonSchema[None] = Field(default=None, description="the input at fault, if one is")
    request_id: str | SkipJsonSchema[None] = Field(default=None, description="quote it in a report")


def problem(description: str) -> dict[str, Any]:
    """One documented error response with a problem+json body."""
    return {"description": description, "content": {PROBLEM_JSON: {"schema": {"$ref": PROBLEM_SCHEMA_REF}}}}


NOT_FOUND = problem("No such thing: the path names an id that does not exist.")
CONFLICT = problem("The change conflicts with what is stored (a taken id or key, or a stale revision).")
VALIDATION = problem("The request is invalid: `field` names the input, `errors` lists every problem.")
UNAVAILABLE = problem(
    "A system NuFi relies on cannot serve right now (`dependency` names it: the database, Kubernetes, "
    "Prometheus, the identity provider); nothing was changed. Retry after `Retry-After` seconds."
)
RETRY_AFTER_HEADER: dict[str, Any] = {
    "description": "Seconds to wait before retrying (also `retry_after_seconds` in the body).",
    "schema": {"type": "integer", "minimum": 1},
}
TOO_LARGE = problem("The request body is larger than NUFI_MAX_REQUEST_BODY_BYTES; nothing was read.")
