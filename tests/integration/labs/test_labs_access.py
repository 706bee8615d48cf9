"""Every lab route — each one the API describes, and the lab proxy's — asked anonymously, by a
non-member and by an admin: 401, 403 (whether the project exists or not), and through; and a member of
another project opening a lab of either kind as a browser does, on labs' own origins (`site`): no
page, no grant, no WebSocket, whichever credential they hold."""

from __future__ import annotations

import re

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from nufi.api import create_app
from support.world import World, create_project, project_name

from .lab_site import HTML, SOCKET_PATHS, Site, lab_cookie, on_lab
from .labs_world import lab_body, make_lab
from .sign_in import sign_in

LAB_ROUTES = "/api/v1/projects/{project}/labs"


def _lab_routes() -> list[tuple[str, str]]:
    document = create_app().openapi()
    routes = [
        (method.upper(), path)
        for path, operations in document["paths"].items()
        if path.startswith(LAB_ROUTES)
        for method in operations
    ]
    return sorted(routes)


def _concrete(path: str, project: str) -> str:
    return re.sub(r"\{name\}", "lab", path.replace("{project}", project))


def test_the_lab_routes_are_the_ones_this_file_walks() -> None:
    assert _lab_routes() == [
        ("DELETE", "/api/v1/projects/{project}/labs/{name}"),
        ("GET", "/api/v1/projects/{project}/labs"),
        ("GET", "/api/v1/projects/{project}/labs/{name}"),
        ("POST", "/api/v1/projects/{project}/labs"),
        ("POST", "/api/v1/projects/{project}/labs/{name}/start"),
        ("POST", "/api/v1/projects/{project}/labs/{name}/stop"),
    ]


async def test_non_members_get_403_on_every_lab_route_and_admins_get_through(
    nufi: httpx.AsyncClient, world: World, foreign_project: str
) -> None:
    # The admin's lab exists, so refusals cannot be told from "no such lab".
    made = await nufi.post(f"/api/v1/projects/{foreign_project}/labs", json=lab_body(), headers=world.admin)
    assert made.status_code == 201, made.text
    proxy_paths = [f"/labs/{foreign_project}/lab/tree", f"/notebook/{foreign_project}/lab/tree"]
    for project in (foreign_project, "p-nobody-has"):
        for method, template in _lab_routes():
            url = _concrete(template, project)
            body = lab_body("other") if method == "POST" and template == LAB_ROUTES else None
            anonymous = await nufi.request(method, url, json=body)
            assert anonymous.status_code == 401, (method, url)
            # Whatever the body: membership is checked before it is read.
            for sent in (body, {}, {"name": "Not A Name", "kind": 7}):
                as_user = await nufi.request(method, url, json=sent, headers=world.user)
                assert as_user.status_code == 403, (method, url, sent, as_user.text)
                assert as_user.headers["content-type"].startswith("application/problem+json")
        for path in [p.replace(foreign_project, project) for p in proxy_paths]:
            for method in ("GET", "POST", "DELETE"):
                refused = await nufi.request(method, path, headers=world.user)
                assert refused.status_code == 403, (method, path)
                assert refused.headers["content-type"].startswith("application/problem+json")

    # The admin, in the same order the routes are listed: everything answers, the lab goes last.
    base = f"/api/v1/projects/{foreign_project}/labs"
    assert (await nufi.get(base, headers=world.admin)).status_code == 200
    assert (await nufi.post(base, json=lab_body("other"), headers=world.admin)).status_code == 201
    assert (await nufi.get(f"{base}/lab", headers=world.admin)).status_code == 200
    assert (await nufi.post(f"{base}/lab/stop", headers=world.admin)).json()["status"] == "Stopped"
    assert (await nufi.post(f"{base}/lab/start", headers=world.admin)).status_code == 200
    assert (await nufi.get(f"/labs/{foreign_project}/lab/tree", headers=world.admin)).status_code == 200
    assert (await nufi.delete(f"{base}/lab", headers=world.admin)).status_code == 204
    assert (await nufi.delete(f"{base}/other", headers=world.admin)).status_code == 204
    # An admin asking for an absent project hears so.
    assert (await nufi.get("/api/v1/projects/p-nobody-has/labs", headers=world.admin)).status_code == 404


@pytest.mark.parametrize("lab_kind", ["jupyter", "vscode"])
async def test_a_member_of_another_project_opens_neither_its_lab_s_pages_nor_its_sockets(
    client: httpx.AsyncClient, site: Site, world: World, lab_kind: str
) -> None:
    # `user` is a member of `own` (whose lab cookie they hold) and not of `other`, whose lab is the admin's.
    own, other = project_name(), project_name()
    await create_project(client, world, own, ["user"])
    await create_project(client, world, other, [])
    try:
        await make_lab(client, world, own, kind=lab_kind)
        made = await client.post(
            f"/api/v1/projects/{other}/labs", json=lab_body(kind=lab_kind), headers=world.admin
        )
        assert made.status_code == 201, made.text
        session = await sign_in(client, "user", "user")
        cookie = await lab_cookie(client, site, session, own)
        lab = f"/labs/{other}/lab/"
        dashboard = {"Cookie": f"nufi_session={session}"}
        # On the dashboard: neither the redirect to the lab's host nor a grant.
        opened = await client.get(lab, headers={**HTML, **dashboard})
        assert opened.status_code == 403, opened.headers.get("location")
        granted = await client.get(
            "/_nufi/lab-grant", params={"next": lab, "state": "s" * 32}, headers=dashboard
        )
        assert granted.status_code == 403, granted.headers.get("location")
        # At the lab's host: their own lab's cookie counts for nothing there, their token is refused.
        assert (await client.get(lab, headers=on_lab(site, other, cookie))).status_code == 401
        by_token = await client.get(lab, headers=on_lab(site, other, **HTML, **world.user))
        assert by_token.status_code == 403
        socket = f"ws://{site.lab_host(other)}{lab}{SOCKET_PATHS[lab_kind]}"
        for credentials, status in (({"Cookie": f"nufi_lab={cookie}"}, 401), (world.user, 403)):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(
                    socket,
                    host="127.0.0.1",
                    port=site.port,
                    origin=Origin(site.lab_origin(other)),
                    additional_headers=credentials,
                ):
                    pass
            assert refused.value.response.status_code == status
    finally:
        for name in (own, other):
            await client.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)
