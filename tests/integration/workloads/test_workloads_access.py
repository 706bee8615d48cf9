"""Who may use a project's routes: anonymous callers never, non-members never (403 whether the
project exists or not, whatever they send), members and admins always."""

from __future__ import annotations

from typing import Any

import httpx

from support.world import World, deployment_body, project_name

PREFIX = "/api/v1/projects/{project}"


def _bodies() -> dict[tuple[str, str], Any]:
    # Valid bodies, so a refusal can only be about who is asking.
    return {
        ("POST", f"{PREFIX}/deployments"): deployment_body(replicas=0),
        ("PATCH", f"{PREFIX}/deployments/{{name}}"): {"replicas": 0},
        ("POST", f"{PREFIX}/labs"): {
            "name": "lab",
            "kind": "jupyter",
            "accelerator": {"device_type": "lpu", "count": 1},
        },
    }


async def _project_routes(nufi: httpx.AsyncClient) -> list[tuple[str, str]]:
    document = (await nufi.get("/openapi.json")).json()
    return [
        (method.upper(), path)
        for path, operations in document["paths"].items()
        if path == PREFIX or path.startswith(PREFIX + "/")
        for method in operations
    ]


def _url(path: str, project: str) -> str:
    return path.replace("{project}", project).replace("{name}", "llm").replace("{username}", "user")


async def test_every_project_route_refuses_anonymous_and_non_members(
    nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str
) -> None:
    routes = await _project_routes(nufi)
    expected = {
        ("GET", PREFIX),
        ("GET", f"{PREFIX}/accelerators"),
        ("GET", f"{PREFIX}/deployments"),
        ("POST", f"{PREFIX}/deployments"),
        ("GET", f"{PREFIX}/deployments/{{name}}"),
        ("PATCH", f"{PREFIX}/deployments/{{name}}"),
        ("DELETE", f"{PREFIX}/deployments/{{name}}"),
    }
    assert expected <= set(routes), "a project route went missing"
    bodies = _bodies()
    absent = project_name()
    for method, path in routes:
        body = bodies.get((method, path), {})
        anonymous = await nufi.request(method, _url(path, project), json=body)
        assert anonymous.status_code == 401, f"{method} {path} let an anonymous caller in"
        for target in (foreign_project, absent):
            outsider = await nufi.request(method, _url(path, target), json=body, headers=world.user)
            assert outsider.status_code == 403, (
                f"{method} {path} answered {outsider.status_code} to a non-member"
            )
            assert outsider.headers["content-type"].startswith("application/problem+json")
            assert "not a member" in outsider.json()["detail"]


async def test_members_and_admins_use_every_project_route(
    nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str
) -> None:
    routes = await _project_routes(nufi)
    bodies = _bodies()
    for headers, target in ((world.user, project), (world.admin, foreign_project)):
        for method, path in routes:
            body = bodies.get((method, path), {})
            response = await nufi.request(method, _url(path, target), json=body, headers=headers)
            assert response.status_code not in (401, 403), f"{method} {path} refused {response.status_code}"
            if (method, path) in bodies:
                assert response.status_code in (200, 201), (method, path, response.text)
    absent = await nufi.get(f"/api/v1/projects/{project_name()}", headers=world.admin)
    assert absent.status_code == 404


async def test_project_lists_show_own_projects_to_users_and_all_to_admins(
    nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str
) -> None:
    assert (await nufi.get("/api/v1/projects")).status_code == 401
    mine = [p["name"] for p in (await nufi.get("/api/v1/projects", headers=world.user)).json()["items"]]
    every = [p["name"] for p in (await nufi.get("/api/v1/projects", headers=world.admin)).json()["items"]]
    assert project in mine and foreign_project not in mine
    assert {project, foreign_project} <= set(every)
    assert every == sorted(every)
