"""The OpenAPI document the server publishes: every success body has a real schema, and every error an
operation can answer is documented as an application/problem+json `Problem`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from nufi.api import create_app
from nufi.api.labproxy.proxy import ROUTE_TEMPLATE as LAB_PROXY_PATH
from nufi.config import Settings
from support.asgi import serving
from support.nufi_app import MEMORY_DATABASE

PROBLEM_JSON = "application/problem+json"
PROBLEM_REF = "#/components/schemas/Problem"
# The catalog's writes that can meet a stored state they conflict with (taken ids and keys, revisions).
CONFLICTING_WRITES = {
    ("post", "/api/v1/admin/devices"),
    ("put", "/api/v1/admin/devices/{device_type_id}"),
    ("delete", "/api/v1/admin/devices/{device_type_id}"),
}
# Dashboards poll these: each answer carries a strong ETag, and If-None-Match naming it is a 304.
POLLED = {("get", "/api/v1/monitoring/overview"), ("get", "/api/v1/monitoring/{device_type_id}")}
Operation = tuple[str, str, dict[str, Any]]


pytestmark = pytest.mark.usefixtures("clean_env")


def app() -> FastAPI:
    return create_app(Settings(database_url=SecretStr(MEMORY_DATABASE)))


@pytest.fixture
async def document() -> dict[str, Any]:
    async with serving(app()) as client:
        response = await client.get("/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def operations(document: dict[str, Any]) -> Iterator[Operation]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield method, path, operation


def resolved(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        schema = document["components"]["schemas"][name]
    return schema


def success_problems(document: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    """What is wrong with the operation's documented success: nothing when some 2xx has a JSON body
    whose schema names its properties, is an event stream whose description names its events, or
    when the success is a 204 without a body."""
    successes = {code: r for code, r in operation["responses"].items() if code.startswith("2")}
    if not successes:
        return ["no 2xx response"]
    problems = []
    for code, response in successes.items():
        content = response.get("content", {})
        if code == "204":
            if content:
                problems.append("204 documents a body")
            continue
        if "text/event-stream" in content:
            # A stream's events have no schema in OpenAPI 3.1: its description must name them.
            if "`event: " not in response.get("description", ""):
                problems.append(f"{code} event stream does not name its events")
            continue
        schema = content.get("application/json", {}).get("schema")
        if schema is None:
            problems.append(f"{code} has no application/json schema")
        elif not resolved(document, schema).get("properties"):
            problems.append(f"{code} body is not described: {schema}")
    return problems


def error_problems(operation: dict[str, Any], expected: set[str]) -> list[str]:
    responses = operation["responses"]
    problems = [f"{code} missing" for code in sorted(expected - set(responses))]
    for code, response in responses.items():
        if code[0] in "45":
            schema = response.get("content", {}).get(PROBLEM_JSON, {}).get("schema")
            if schema != {"$ref": PROBLEM_REF} or set(response["content"]) != {PROBLEM_JSON}:
                problems.append(f"{code} is not documented as {PROBLEM_JSON} Problem: {response}")
    return problems


def expected_errors(method: str, path: str, operation: dict[str, Any]) -> set[str]:
    expected: set[str] = set()
    if operation.get("security"):
        expected |= {"400", "401", "503"}  # 400: more than one Authorization header
    if path.startswith("/api/v1/admin/"):
        expected.add("403")
    if "{" in path:
        expected.add("404")
    if operation.get("parameters") or "requestBody" in operation:
        expected.add("422")
    if "requestBody" in operation:
        expected.add("413")  # above NUFI_MAX_REQUEST_BODY_BYTES
    if (method, path) in CONFLICTING_WRITES:
        expected.add("409")
    return expected


def conditional_problems(method: str, path: str, operation: dict[str, Any]) -> list[str]:
    """A polled operation documents its 304; a 304 has no body, and it and the 200 name the ETag."""
    responses = operation["responses"]
    problems = ["304 missing"] if (method, path) in POLLED and "304" not in responses else []
    if "304" in responses:
        if responses["304"].get("content"):
            problems.append("304 documents a body")
        for code in ("200", "304"):
            header = responses.get(code, {}).get("headers", {}).get("ETag", {})
            if header.get("required") is not True or header.get("schema") != {"type": "string"}:
                problems.append(f"{code} does not document its ETag header")
    return problems


def audit(document: dict[str, Any]) -> dict[str, list[str]]:
    found = {}
    for method, path, operation in operations(document):
        if path == LAB_PROXY_PATH:
            continue  # the lab's own answers: test_the_lab_proxy_documents_its_problems
        expected = expected_errors(method, path, operation)
        problems = success_problems(document, operation) + error_problems(operation, expected)
        problems += conditional_problems(method, path, operation)
        if problems:
            found[f"{method.upper()} {path}"] = problems
    return found


def test_every_operation_documents_its_success_and_its_problems(document: dict[str, Any]) -> None:
    assert audit(document) == {}


def test_the_lab_proxy_documents_its_problems(document: dict[str, Any]) -> None:
    # Its successes are whatever the lab answers; its own refusals are problems like the API's.
    responses = document["paths"][LAB_PROXY_PATH]["get"]["responses"]
    assert {"401", "403", "404", "502", "503"} <= set(responses)
    assert error_problems({"responses": responses}, {"401", "403", "404", "502", "503"}) == []
    assert responses["503"]["headers"]["Retry-After"]["schema"]["type"] == "integer"


def test_the_api_routes_are_all_there_and_signed_in(document: dict[str, Any]) -> None:
    api = [(m, p, o) for m, p, o in operations(document) if p.startswith("/api/v1/")]
    assert len(api) >= 13
    for method, path, operation in api:
        if path not in ("/api/v1/version", "/api/v1/auth/cli"):
            assert operation.get("security"), f"{method.upper()} {path} is not signed in"
    assert {(m, p) for m, p, _ in api} >= CONFLICTING_WRITES | POLLED


def test_the_audit_notices_a_poller_without_its_304(document: dict[str, Any]) -> None:
    operation = json.loads(json.dumps(document["paths"]["/api/v1/monitoring/overview"]["get"]))
    assert conditional_problems("get", "/api/v1/monitoring/overview", operation) == []
    del operation["responses"]["200"]["headers"]
    operation["responses"]["304"]["content"] = {"application/json": {}}
    assert conditional_problems("get", "/api/v1/monitoring/overview", operation) == [
        "304 documents a body",
        "200 does not document its ETag header",
    ]
    del operation["responses"]["304"]
    assert conditional_problems("get", "/api/v1/monitoring/overview", operation) == ["304 missing"]


def test_the_problem_schema_has_the_core_members_and_allows_more(document: dict[str, Any]) -> None:
    problem = document["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail"}
    assert {"instance", "field"} <= set(problem["properties"])
    assert problem["additionalProperties"] is True


def test_fastapis_own_validation_body_is_nowhere(document: dict[str, Any]) -> None:
    text = json.dumps(document)
    assert "HTTPValidationError" not in text
    assert "ValidationError" not in document["components"]["schemas"]


async def test_the_audit_notices_a_route_without_a_response_model() -> None:
    careless = app()

    @careless.get("/api/v1/careless/{thing}")
    async def careless_route(thing: str) -> dict[str, Any]:
        return {"thing": thing}

    async with serving(careless) as client:
        document = (await client.get("/openapi.json")).json()
    (problems,) = audit(document).values()
    assert any("body is not described" in p for p in problems)
    assert "404 missing" in problems


def test_no_schema_is_an_undescribed_object(document: dict[str, Any]) -> None:
    # A serializer that returns a plain dict turns a model into "any object" in the document.
    vague = [
        name
        for name, schema in document["components"]["schemas"].items()
        if schema.get("type") == "object"
        and not schema.get("properties")
        and schema.get("additionalProperties", True) is True
    ]
    assert vague == []


def methods_serving(document: dict[str, Any], concrete: str) -> set[str]:
    """Every method the document lists under a path template that `concrete` matches: the server
    serves PUT /devices/check-metrics too, as the device type `check-metrics`."""
    methods: set[str] = set()
    for template, item in document["paths"].items():
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), concrete):
            methods |= {method.upper() for method in item}
    return methods


async def test_a_405_allows_exactly_the_methods_the_document_lists_for_the_path() -> None:
    async with serving(app()) as client:
        document = (await client.get("/openapi.json")).json()
        mismatches = {}
        for path in document["paths"]:
            if path == LAB_PROXY_PATH:
                continue  # every method goes to the lab; there is no 405 to give
            concrete = re.sub(r"\{[^}]+\}", "x", path)
            documented = methods_serving(document, concrete)
            unused = next(m for m in ("PATCH", "POST", "PUT", "DELETE") if m not in documented)
            response = await client.request(unused, concrete)
            allowed = set(response.headers.get("allow", "").replace(" ", "").split(","))
            if response.status_code != 405 or allowed != documented:
                mismatches[f"{unused} {path}"] = (response.status_code, response.headers.get("allow"))
    # PUT and DELETE of /api/v1/admin/devices/{device_type_id} live in two routes: Starlette named
    # the first one's method alone.
    assert mismatches == {}


def test_every_integer_parameter_has_a_maximum(document: dict[str, Any]) -> None:
    # An unbounded integer reaches the database as is: 2**63 overflows it (a 500, not a 422).
    unbounded = [
        f"{method.upper()} {path} {parameter['name']}"
        for method, path, operation in operations(document)
        for parameter in operation.get("parameters", [])
        for schema in [parameter["schema"], *parameter["schema"].get("anyOf", [])]
        if schema.get("type") == "integer" and "maximum" not in schema
    ]
    assert unbounded == []
