"""Every lab on an origin of its own: NuFi on loopback with NUFI_LAB_BASE_DOMAIN=localhost:<port>, so the
dashboard is http://127.0.0.1:<port> and a lab http://<name>--<project>.localhost:<port>. Requests to a
lab's host go to 127.0.0.1 with that Host header (the way a browser resolves `*.localhost`).

The dashboard's session earns a redirect with a one-lab grant, never a lab page; the grant is
exchanged once for a host-only lab cookie; that cookie works for its lab only, ends with the dashboard
session and with the membership; and a cookie caller's WebSocket or change must come from the lab's
own origin."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from support.polling import until

from .labs_world import World, create_project, lab_body, project_name, register_lpu, running
from .sign_in import sign_in

HTML = {"Accept": "text/html,application/xhtml+xml"}


class Site:
    """NuFi's dashboard origin and its labs' hosts, all on one loopback port."""

    def __init__(self, url: str, port: int) -> None:
        self.url = url
        self.port = port

    def lab_host(self, project: str, name: str = "lab") -> str:
        return f"{name}--{project}.localhost:{self.port}"

    def lab_origin(self, project: str, name: str = "lab") -> str:
        return f"http://{self.lab_host(project, name)}"


@pytest.fixture(scope="module")
async def site(
    world: World, lab_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Site]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings = world.settings(
        f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('origins-db') / 'nufi.db'}",
        lab_route="cluster-dns",
        lab_cluster_dns_url=lab_server,
        lab_base_domain=f"localhost:{port}",
        dashboard_public_url=f"http://127.0.0.1:{port}",
    )
    async with running(settings, sock=sock) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            await register_lpu(client, world)
        yield Site(url, port)


@pytest.fixture
async def client(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:
        yield client


@pytest.fixture
async def two_labs(client: httpx.AsyncClient, world: World) -> AsyncIterator[tuple[str, str]]:
    """Two projects `user` is a member of, with a lab named `lab` in each."""
    projects = [project_name(), project_name()]
    for name in projects:
        await create_project(client, world, name, ["user"])
        made = await client.post(f"/api/v1/projects/{name}/labs", json=lab_body(), headers=world.user)
        assert made.status_code == 201, made.text
    yield projects[0], projects[1]
    for name in projects:
        await client.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


async def _lab_cookie(
    client: httpx.AsyncClient, site: Site, session: str, project: str, path: str = "tree"
) -> str:
    """Open the lab from the dashboard and exchange the grant: the lab cookie's value."""
    sent = await client.get(
        f"/labs/{project}/lab/{path}", headers={**HTML, "Cookie": f"nufi_session={session}"}
    )
    assert sent.status_code == 302, sent.text
    grant_url = urlsplit(sent.headers["location"])
    exchanged = await client.get(
        f"{grant_url.path}?{grant_url.query}", headers={"Host": site.lab_host(project)}
    )
    assert exchanged.status_code == 303, exchanged.text
    cookie = exchanged.headers["set-cookie"]
    name, _, rest = cookie.partition("=")
    assert name == "nufi_lab"
    return rest.split(";", 1)[0]


def _on_lab(site: Site, project: str, cookie: str | None = None, **headers: str) -> dict[str, str]:
    out = {"Host": site.lab_host(project), **headers}
    if cookie is not None:
        out["Cookie"] = f"nufi_lab={cookie}"
    return out


async def test_the_dashboard_session_earns_a_one_lab_grant_that_becomes_a_host_only_cookie(
    client: httpx.AsyncClient, site: Site, world: World, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    sent = await client.get(
        f"/labs/{project}/lab/tree/a%20b",
        params={"x": "1"},
        headers={**HTML, "Cookie": f"nufi_session={session}"},
    )
    assert sent.status_code == 302, sent.text
    location = urlsplit(sent.headers["location"])
    assert f"{location.scheme}://{location.netloc}" == site.lab_origin(project)
    assert location.path == "/_nufi/lab-signin"
    query = parse_qs(location.query)
    assert query["next"] == [f"/labs/{project}/lab/tree/a%20b?x=1"]
    assert session not in location.query

    exchanged = await client.get(f"{location.path}?{location.query}", headers=_on_lab(site, project))
    assert exchanged.status_code == 303, exchanged.text
    assert exchanged.headers["location"] == f"/labs/{project}/lab/tree/a%20b?x=1"
    attributes = [part.strip().lower() for part in exchanged.headers["set-cookie"].split(";")]
    assert {"path=/", "httponly", "samesite=lax"} <= set(attributes)
    assert not any(part.startswith("domain") for part in attributes)
    cookie = exchanged.headers["set-cookie"].split(";", 1)[0].partition("=")[2]
    assert session not in cookie

    page = await client.get(f"/labs/{project}/lab/tree", headers=_on_lab(site, project, cookie, Cookie2="x"))
    assert page.status_code == 200, page.text
    upstream_headers = dict(page.json()["headers"])
    assert "cookie" not in upstream_headers, "the lab cookie must not reach the lab"

    replayed = await client.get(f"{location.path}?{location.query}", headers=_on_lab(site, project))
    assert replayed.status_code == 403
    assert replayed.json()["type"] == "lab-grant-refused"


async def test_a_lab_cookie_opens_its_own_lab_only_and_the_dashboard_cookie_opens_no_lab_host(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str]
) -> None:
    first, second = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await _lab_cookie(client, site, session, first)
    # The first lab's cookie, carried to the second lab's host (or path), opens nothing there.
    other_host = await client.get(f"/labs/{second}/lab/tree", headers=_on_lab(site, second, cookie))
    assert other_host.status_code == 401
    other_path = await client.get(f"/labs/{second}/lab/tree", headers=_on_lab(site, first, cookie))
    assert other_path.status_code == 404
    # A grant for the first lab, shown at the second lab's host, is refused there.
    sent = await client.get(f"/labs/{first}/lab/tree", headers={**HTML, "Cookie": f"nufi_session={session}"})
    grant_url = urlsplit(sent.headers["location"])
    elsewhere = await client.get(f"{grant_url.path}?{grant_url.query}", headers=_on_lab(site, second))
    assert elsewhere.status_code == 403
    assert elsewhere.json()["type"] == "lab-grant-refused"
    # The dashboard's cookie on a lab's host counts for nothing; the lab cookie on the dashboard neither.
    dashboard_cookie = await client.get(
        f"/labs/{first}/lab/tree", headers={"Host": site.lab_host(first), "Cookie": f"nufi_session={session}"}
    )
    assert dashboard_cookie.status_code == 401
    lab_cookie_on_dashboard = await client.get(
        f"/labs/{first}/lab/tree", headers={"Cookie": f"nufi_lab={cookie}"}
    )
    assert lab_cookie_on_dashboard.status_code == 401
    assert (await client.get("/api/v1/projects", headers={"Cookie": f"nufi_lab={cookie}"})).status_code == 401


async def test_a_lab_host_serves_its_lab_and_nothing_else(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await _lab_cookie(client, site, session, project)
    for path in (
        "/",
        "/api/v1/projects",
        "/auth/login",
        "/labs/",
        "/monitoring",
        f"/labs/{project}/other/tree",
    ):
        answer = await client.get(path, headers=_on_lab(site, project, cookie, Accept="text/html"))
        assert answer.status_code == 404, (path, answer.text)
        assert answer.headers["content-type"] == "application/problem+json", path
    unknown = await client.get("/", headers={"Host": f"nobody.localhost:{site.port}"})
    assert unknown.status_code == 404
    assert unknown.headers["content-type"] == "application/problem+json"


async def test_a_browser_not_signed_in_at_a_lab_host_is_sent_to_the_dashboard(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    answer = await client.get(
        f"/labs/{project}/lab/tree", params={"a": "1"}, headers=_on_lab(site, project, **HTML)
    )
    assert answer.status_code == 302
    assert answer.headers["location"] == f"{site.url}/labs/{project}/lab/tree?a=1"


async def test_the_lab_cookie_ends_with_the_dashboard_session(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await _lab_cookie(client, site, session, project)
    assert (
        await client.get(f"/labs/{project}/lab/tree", headers=_on_lab(site, project, cookie))
    ).status_code == 200
    sent = await client.get(
        f"/labs/{project}/lab/tree", headers={**HTML, "Cookie": f"nufi_session={session}"}
    )
    unspent = urlsplit(sent.headers["location"])
    out = await client.post("/auth/logout", headers={"Cookie": f"nufi_session={session}", "Origin": site.url})
    assert out.status_code in (302, 303), out.text
    after = await client.get(f"/labs/{project}/lab/tree", headers=_on_lab(site, project, cookie))
    assert after.status_code == 401
    late = await client.get(f"{unspent.path}?{unspent.query}", headers=_on_lab(site, project))
    assert late.status_code == 403
    assert late.json()["type"] == "lab-grant-refused"


async def test_the_lab_cookie_ends_with_the_membership(
    client: httpx.AsyncClient, site: Site, world: World, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await _lab_cookie(client, site, session, project)
    sent = await client.get(
        f"/labs/{project}/lab/tree", headers={**HTML, "Cookie": f"nufi_session={session}"}
    )
    unspent = urlsplit(sent.headers["location"])
    removed = await client.delete(f"/api/v1/admin/projects/{project}/members/user", headers=world.admin)
    assert removed.status_code in (200, 204), removed.text

    async def refused() -> bool:
        answer = await client.get(f"/labs/{project}/lab/tree", headers=_on_lab(site, project, cookie))
        return answer.status_code == 403

    # Who may open which lab is remembered for at most 5 s (the proxy's route cache).
    await until(refused, within=15)
    late = await client.get(f"{unspent.path}?{unspent.query}", headers=_on_lab(site, project))
    assert late.status_code == 403


async def test_cookie_callers_change_things_and_open_sockets_only_from_the_lab_s_origin(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str]
) -> None:
    project, other = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await _lab_cookie(client, site, session, project)
    own = site.lab_origin(project)
    path = f"/labs/{project}/lab/api/contents/x"
    for origin in (site.lab_origin(other), site.url, "http://evil.example", "null", None):
        headers = _on_lab(site, project, cookie)
        if origin is not None:
            headers["Origin"] = origin
        refused = await client.post(path, content=b"{}", headers=headers)
        assert refused.status_code == 403, origin
        assert refused.json()["type"] == "origin-refused", origin
    accepted = await client.post(path, content=b"{}", headers=_on_lab(site, project, cookie, Origin=own))
    assert accepted.status_code == 201, accepted.text

    url = f"ws://{site.lab_host(project)}/labs/{project}/lab/api/kernels/k/socket"
    for origin in (site.lab_origin(other), site.url, "http://evil.example"):
        with pytest.raises(InvalidStatus) as foreign:
            async with connect(
                url,
                host="127.0.0.1",
                port=site.port,
                origin=Origin(origin),
                additional_headers={"Cookie": f"nufi_lab={cookie}"},
            ):
                pass
        assert foreign.value.response.status_code == 403, origin
    async with connect(
        url,
        host="127.0.0.1",
        port=site.port,
        origin=Origin(own),
        additional_headers={"Cookie": f"nufi_lab={cookie}"},
    ) as socket_:
        assert json.loads(await socket_.recv())["cookie"] is None


async def test_on_the_dashboard_origin_a_session_only_opens_labs_and_bearer_answers_are_sandboxed(
    client: httpx.AsyncClient, site: Site, world: World, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    for method in ("GET", "POST"):
        fetched = await client.request(
            method, f"/labs/{project}/lab/api/contents", headers={"Cookie": f"nufi_session={session}"}
        )
        assert fetched.status_code == 403, method
        assert fetched.json()["type"] == "lab-on-its-own-origin"
        assert fetched.json()["origin"] == site.lab_origin(project)
    with pytest.raises(InvalidStatus) as socket_refused:
        async with connect(
            f"ws://127.0.0.1:{site.port}/labs/{project}/lab/api/kernels/k/socket",
            origin=Origin(site.url),
            additional_headers={"Cookie": f"nufi_session={session}"},
        ):
            pass
    assert socket_refused.value.response.status_code == 403
    by_token = await client.get(f"/labs/{project}/lab/page.html", headers=world.user)
    assert by_token.status_code == 200
    policies = by_token.headers.get_list("content-security-policy")
    assert any(policy.split(";")[0].strip() == "sandbox" for policy in policies), policies


async def test_a_notebook_lab_opens_on_its_own_host_at_the_controllers_path(
    client: httpx.AsyncClient, site: Site, world: World, notebooks: None
) -> None:
    project = project_name()
    await create_project(client, world, project, ["user"])
    try:
        made = await client.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
        assert made.status_code == 201, made.text
        session = await sign_in(client, "user", "user")
        sent = await client.get(
            f"/labs/{project}/lab/tree", headers={**HTML, "Cookie": f"nufi_session={session}"}
        )
        assert sent.status_code == 302, sent.text
        grant_url = urlsplit(sent.headers["location"])
        assert parse_qs(grant_url.query)["next"] == [f"/notebook/{project}/lab/tree"]
        exchanged = await client.get(f"{grant_url.path}?{grant_url.query}", headers=_on_lab(site, project))
        assert exchanged.headers["location"] == f"/notebook/{project}/lab/tree"
        cookie = exchanged.headers["set-cookie"].split(";", 1)[0].partition("=")[2]
        page = await client.get(f"/notebook/{project}/lab/tree", headers=_on_lab(site, project, cookie))
        assert page.status_code == 200, page.text
        assert page.json()["path"] == f"/notebook/{project}/lab/tree"
    finally:
        await client.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)
