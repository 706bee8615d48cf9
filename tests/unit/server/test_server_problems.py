"""Every error answer is an application/problem+json body that says what went wrong.

The app runs in memory (ASGI transport, nothing configured), with a few routes added that raise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import APIRouter, FastAPI, HTTPException
from pydantic import BaseModel

from nufi.api import create_app
from nufi.config import Settings
from nufi.errors import Conflict, DependencyUnavailable, Forbidden, NotFound, Unauthorized, ValidationFailed
from support.asgi import serving
from support.env import clear_nufi_env

PROBLEM = "application/problem+json"


class DeviceTypeIn(BaseModel):
    id: str
    memory_bytes: int


def add_raising_routes(app: FastAPI) -> None:
    @app.get("/boom/validation")
    async def validation() -> None:
        raise ValidationFailed(
            code="resource_key.rule.missing_prefix", field="resource_key", params={"key": "gpu"}
        )

    @app.get("/boom/not-found")
    async def not_found() -> None:
        raise NotFound(code="device_type.not_found", params={"device_type": "rngd-x"}, resource="device-type")

    @app.get("/boom/conflict")
    async def conflict() -> None:
        raise Conflict(code="device_type.id_official", params={"device_type": "rngd"})

    @app.get("/boom/unauthorized")
    async def unauthorized() -> None:
        raise Unauthorized(code="auth.token_expired")

    @app.get("/boom/forbidden")
    async def forbidden() -> None:
        raise Forbidden(code="auth.role_required", params={"required_role": "nufi-admin", "user": "u"})

    @app.get("/boom/dependency")
    async def dependency() -> None:
        raise DependencyUnavailable(
            code="prometheus.timed_out", dependency="prometheus", params={"url": "http://p", "seconds": 10}
        )

    @app.get("/boom/overreach")
    async def overreach() -> None:
        raise NotFound(code="device_type.not_found", params={"device_type": "x"}, status=200, title="fine")

    @app.get("/boom/teapot")
    async def teapot() -> None:
        raise HTTPException(status_code=418, detail="short and stout")

    @app.get("/boom/crash")
    async def crash() -> None:
        raise RuntimeError("secret internals /srv/nufi/db.py line 42")


def add_answering_routes(app: FastAPI) -> None:
    @app.get("/items")
    async def items(limit: int = 10) -> dict[str, int]:
        return {"limit": limit}

    @app.post("/device-types")
    async def create(body: DeviceTypeIn) -> dict[str, str]:
        return {"id": body.id}

    # One path, two routes in two routers: GET here, PUT and DELETE in an included router.
    @app.get("/things/{thing_id}")
    async def read_thing(thing_id: str) -> dict[str, str]:
        return {"id": thing_id}

    writes = APIRouter()

    @writes.put("/things/{thing_id}")
    async def replace_thing(thing_id: str) -> dict[str, str]:
        return {"id": thing_id}

    @writes.delete("/things/{thing_id}")
    async def delete_thing(thing_id: str) -> None:
        return None

    app.include_router(writes)


@pytest.fixture
async def client(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    clear_nufi_env(monkeypatch)
    app = create_app(Settings())
    add_raising_routes(app)
    add_answering_routes(app)
    async with serving(app) as http:
        yield http


def assert_problem(response: httpx.Response, status: int, type_: str) -> dict[str, Any]:
    assert response.status_code == status
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"] == type_
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert body["request_id"] == response.headers["x-request-id"]
    return body


async def test_validation_failed_gives_422_with_field(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/boom/validation"), 422, "validation-failed")
    assert body["field"] == "resource_key"
    assert body["detail"].startswith("'gpu' must contain a domain prefix such as 'example.com/'")
    # The params are what the sentence names; `field` stands in the body on its own.
    assert (body["code"], body["params"]) == ("resource_key.rule.missing_prefix", {"key": "gpu"})


@pytest.mark.parametrize(
    ("path", "status", "type_"),
    [
        ("/boom/not-found", 404, "not-found"),
        ("/boom/conflict", 409, "conflict"),
        ("/boom/forbidden", 403, "forbidden"),
        ("/boom/dependency", 503, "dependency-unavailable"),
    ],
)
async def test_domain_errors_map_to_their_status(
    client: httpx.AsyncClient, path: str, status: int, type_: str
) -> None:
    assert_problem(await client.get(path), status, type_)


async def test_extra_fields_travel_with_the_problem(client: httpx.AsyncClient) -> None:
    assert assert_problem(await client.get("/boom/not-found"), 404, "not-found")["resource"] == "device-type"
    body = assert_problem(await client.get("/boom/dependency"), 503, "dependency-unavailable")
    assert body["dependency"] == "prometheus"


async def test_extra_fields_cannot_rewrite_core_members(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/boom/overreach"), 404, "not-found")
    assert body["title"] == "Not found"


async def test_unauthorized_asks_for_a_bearer_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/boom/unauthorized")
    assert_problem(response, 401, "unauthorized")
    assert response.headers["www-authenticate"] == "Bearer"


async def test_query_validation_names_the_field_and_the_value(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/items", params={"limit": "lots"}), 422, "validation-failed")
    assert body["field"] == "limit"
    assert "query field 'limit'" in str(body["detail"])
    assert "'lots'" in str(body["detail"])
    assert body["errors"] == [
        {
            "field": "limit",
            "location": "query",
            "message": "must be an integer (got 'lots')",
            "code": "request.int_parsing",
            "params": {"input": "'lots'"},
        }
    ]
    assert body["code"] == "request.invalid"
    assert body["params"]["field"] == "limit"


async def test_query_validation_speaks_korean_when_asked(client: httpx.AsyncClient) -> None:
    korean = {"Accept-Language": "ko, en;q=0.5"}
    response = await client.get("/items", params={"limit": "lots"}, headers=korean)
    body = assert_problem(response, 422, "validation-failed")
    assert body["title"] == "입력 검증 실패"
    assert body["detail"] == "쿼리의 limit 값이 올바르지 않습니다: 정수여야 합니다 (받은 값: 'lots')"
    assert body["errors"][0]["message"] == "정수여야 합니다 (받은 값: 'lots')"
    # The same sentence as data, for a client that words it itself.
    assert body["code"] == "request.invalid"


async def test_a_caller_naming_no_known_language_reads_english(client: httpx.AsyncClient) -> None:
    response = await client.get("/items", params={"limit": "lots"}, headers={"Accept-Language": "fr"})
    body = assert_problem(response, 422, "validation-failed")
    assert body["title"] == "Validation failed"
    assert body["detail"].startswith("query field 'limit': must be an integer")


async def test_body_validation_lists_every_problem(client: httpx.AsyncClient) -> None:
    response = await client.post("/device-types", json={"memory_bytes": "many"})
    body = assert_problem(response, 422, "validation-failed")
    errors = body["errors"]
    assert isinstance(errors, list)
    assert {e["field"] for e in errors} == {"id", "memory_bytes"}
    assert "more problem" in str(body["detail"])


async def test_unknown_route_is_a_404_problem_pointing_at_the_docs(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/api/v1/nothing-here"), 404, "not-found")
    assert "/api/v1/nothing-here" in str(body["detail"])
    assert "/docs" in str(body["detail"])


async def test_wrong_method_is_a_405_problem_with_allow_header(client: httpx.AsyncClient) -> None:
    response = await client.delete("/healthz")
    assert_problem(response, 405, "method-not-allowed")
    assert "GET" in response.headers["allow"]


async def test_allow_lists_the_methods_of_every_route_on_the_path(client: httpx.AsyncClient) -> None:
    for method in ("POST", "PATCH"):
        response = await client.request(method, "/things/t1")
        assert_problem(response, 405, "method-not-allowed")
        assert response.headers["allow"] == "GET, PUT, DELETE"
    # And each of them is served.
    for method in ("GET", "PUT", "DELETE"):
        assert (await client.request(method, "/things/t1")).status_code in (200, 204)


async def test_an_http_exception_is_worded_from_the_catalog_not_its_detail(client: httpx.AsyncClient) -> None:
    # A framework's sentence is English whatever the caller reads: the status is what is said.
    body = assert_problem(await client.get("/boom/teapot"), 418, "im-a-teapot")
    assert (body["code"], body["params"]["status"]) == ("http.status", 418)
    assert body["detail"] == "The request could not be served (HTTP 418)."
    korean = await client.get("/boom/teapot", headers={"Accept-Language": "ko-KR"})
    assert korean.json()["detail"] == "요청을 처리하지 못했습니다(HTTP 418)."


async def test_unexpected_error_is_a_500_without_internals(client: httpx.AsyncClient) -> None:
    response = await client.get("/boom/crash", headers={"X-Request-ID": "trace-123"})
    body = assert_problem(response, 500, "internal-error")
    assert body["request_id"] == "trace-123"
    assert "trace-123" in str(body["detail"])
    text = response.text
    for leak in ("Traceback", "RuntimeError", "secret internals", "db.py"):
        assert leak not in text


async def test_unsafe_request_ids_are_replaced(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"})
    assert response.status_code == 200
    request_id = response.headers["x-request-id"]
    assert request_id != "bad id\twith spaces"
    assert len(request_id) == 32
