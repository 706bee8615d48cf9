"""Every route of the app, asked anonymously and by a non-admin: the admin surface refuses both, and
a project's routes refuse a non-member of it."""

from __future__ import annotations

import re
import uuid
from typing import Any

from fastapi.routing import APIRoute

from nufi.api import create_app
from nufi.api.labproxy.proxy import ROUTE_TEMPLATE as LAB_PROXY_PATH
from support.nufi_app import bearer
from support.world import World, serve

# Routes anyone may call: probes, metrics, the version, where the CLI signs in, the API description.
PUBLIC = {
    "/healthz",
    "/readyz",
    "/metrics",
    "/api/v1/version",
    "/api/v1/auth/cli",
    "/openapi.json",
    "/docs",
    "/docs/oauth2-redirect",
    "/redoc",
}


# Project routes answer 403 to anyone but the project's members and admins; they are asked with a
# project the user is a member of (let in) and with one they are not (refused).
PROJECT_PREFIX = "/api/v1/projects/{project}"
# Valid bodies for the project routes that take one, so a refusal can only be about who is asking.
PROJECT_BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", f"{PROJECT_PREFIX}/deployments"): {
        "name": "llm",
        "image": "nufi-mock:inference",
        "accelerator": {"device_type": "nvidia-gpu", "count": 1},
        "replicas": 0,
    },
    ("POST", f"{PROJECT_PREFIX}/labs"): {
        "name": "lab",
        "kind": "jupyter",
        "accelerator": {"device_type": "nvidia-gpu", "count": 1},
    },
}


def _concrete(path: str, project: str = "nvidia-gpu") -> str:
    return re.sub(r"\{[^}]+\}", "nvidia-gpu", path.replace("{project}", project))


async def test_every_route_refuses_anonymous_and_admin_routes_refuse_users(
    world: World, sqlite_url: str
) -> None:
    app = create_app(world.settings(sqlite_url))
    # The OpenAPI document lists every route the routers declare, with its methods.
    routes = [
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        # The lab proxy (middleware, documented by hand) refuses strangers in
        # tests/integration/labs/test_lab_proxy.py::test_who_gets_through.
        if path not in PUBLIC and path != LAB_PROXY_PATH
        for method in operations
    ]
    admin_routes = [(m, p) for m, p in routes if p.startswith("/api/v1/admin/")]
    assert len(admin_routes) >= 7, "the admin surface shrank unexpectedly"
    assert all(path.startswith("/api/") for _, path in routes), "a route outside /api/ is not covered here"
    mine, theirs = f"mine-{uuid.uuid4().hex[:6]}", f"theirs-{uuid.uuid4().hex[:6]}"
    async with serve(world.settings(sqlite_url), app) as client:
        for name, members in ((mine, ["user"]), (theirs, [])):
            created = await client.post(
                "/api/v1/admin/projects",
                json={"name": name, "members": members},
                headers=bearer(world.admin_token),
            )
            assert created.status_code == 201, created.text
        for method, path in routes:
            url = _concrete(path)
            if path == PROJECT_PREFIX or path.startswith(PROJECT_PREFIX + "/"):
                body = PROJECT_BODIES.get((method, path), {})
                outsider = await client.request(
                    method, _concrete(path, theirs), json=body, headers=bearer(world.user_token)
                )
                assert outsider.status_code == 403, f"{method} {path} let a non-member in"
                assert "not a member" in outsider.json()["detail"]
                url = _concrete(path, mine)
            anonymous = await client.request(method, url, json={})
            assert anonymous.status_code == 401, f"{method} {path} let an anonymous caller in"
            assert anonymous.headers["www-authenticate"].startswith("Bearer")
            assert anonymous.headers["content-type"].startswith("application/problem+json")
            # A stream never ends; a bad page size makes it answer (422) once the caller is let in.
            params = {"limit": "0"} if path.endswith("/stream") else {}
            as_user = await client.request(
                method, url, json={}, params=params, headers=bearer(world.user_token)
            )
            if (method, path) in admin_routes:
                assert as_user.status_code == 403, f"{method} {path} let a non-admin in"
                assert "nufi-admin" in as_user.json()["detail"]
            else:
                assert as_user.status_code not in (401, 403), f"{method} {path} refused a signed-in user"
        for name in (mine, theirs):
            await client.delete(f"/api/v1/admin/projects/{name}", headers=bearer(world.admin_token))


async def test_invalid_and_foreign_tokens_are_refused(world: World, sqlite_url: str) -> None:
    async with serve(world.settings(sqlite_url)) as client:
        tampered = world.admin_token[:-4] + ("AAAA" if not world.admin_token.endswith("AAAA") else "BBBB")
        for header in (bearer(tampered), bearer("not-a-jwt"), {"Authorization": "Basic YWRtaW46YWRtaW4="}):
            response = await client.get("/api/v1/devices", headers=header)
            assert response.status_code == 401


async def test_me_reports_roles(world: World, sqlite_url: str) -> None:
    async with serve(world.settings(sqlite_url)) as client:
        admin = (await client.get("/api/v1/me", headers=bearer(world.admin_token))).json()
        user = (await client.get("/api/v1/me", headers=bearer(world.user_token))).json()
    assert admin["username"] == "admin" and admin["is_admin"] is True and "nufi-admin" in admin["roles"]
    assert user["username"] == "user" and user["is_admin"] is False


def _api_routes(routes: list[Any]) -> list[APIRoute]:
    found: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        elif hasattr(route, "original_router"):  # how FastAPI keeps an included router
            found += _api_routes(route.original_router.routes)
    return found


def test_no_route_hides_from_the_api_description() -> None:
    # The enumeration above reads the OpenAPI document; a route left out of it would escape the check.
    app = create_app()
    declared = _api_routes(app.routes)
    assert len(declared) >= 10
    assert [r.path for r in declared if not r.include_in_schema and r.path not in PUBLIC] == []
    assert {r.path for r in declared} - PUBLIC <= set(app.openapi()["paths"])
