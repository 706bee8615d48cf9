"""Every lab on an origin of its own: NuFi on loopback with NUFI_LAB_BASE_DOMAIN=localhost:<port>, so the
dashboard is http://127.0.0.1:<port> and a lab http://<name>--<project>.localhost:<port>. Requests to a
lab's host go to 127.0.0.1 with that Host header (the way a browser resolves `*.localhost`).

The dashboard's session earns a redirect with a one-lab grant, never a lab page; the grant is
exchanged once for a host-only lab cookie; that cookie works for its lab only, ends with the dashboard
session and with the membership; and a cookie caller's WebSocket or change must come from the lab's
own origin. What holds for a lab's pages and sockets is held for both kinds (`lab_kind`): Jupyter,
served under the lab's path, and VS Code, served at its root with the path taken off."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from support.polling import until
from support.world import World, create_project, project_name

from .lab_site import (
    CHANGE_PATHS,
    CODE_SERVER_SOCKET,
    HTML,
    SOCKET_PATHS,
    Site,
    cookie_socket,
    exchange,
    grant_refused,
    lab_cookie,
    on_lab,
    to_grant,
)
from .labs_world import lab_body, make_lab
from .sign_in import sign_in

BOTH_KINDS = pytest.mark.parametrize("lab_kind", ["jupyter", "vscode"])


@pytest.fixture
def lab_kind() -> str:
    """The kind of lab `two_labs` makes: Jupyter, unless a test parametrizes it (`BOTH_KINDS`)."""
    return "jupyter"


@pytest.fixture
async def two_labs(client: httpx.AsyncClient, world: World, lab_kind: str) -> AsyncIterator[tuple[str, str]]:
    """Two projects `user` is a member of, with a lab named `lab` in each."""
    projects = [project_name(), project_name()]
    for name in projects:
        await create_project(client, world, name, ["user"])
        await make_lab(client, world, name, kind=lab_kind)
    yield projects[0], projects[1]
    for name in projects:
        await client.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


async def test_the_dashboard_session_earns_a_one_lab_grant_that_becomes_a_host_only_cookie(
    client: httpx.AsyncClient, site: Site, world: World, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    grant_url, state = await to_grant(client, site, session, project, "tree/a%20b?x=1")
    assert parse_qs(urlsplit(grant_url).query)["next"] == [f"/labs/{project}/lab/tree/a%20b?x=1"]

    exchanged = await exchange(client, site, project, grant_url, state)
    assert exchanged.headers["location"] == f"/labs/{project}/lab/tree/a%20b?x=1"
    lab_cookie, dropped_state = exchanged.headers.get_list("set-cookie")
    attributes = [part.strip().lower() for part in lab_cookie.split(";")]
    assert {"path=/", "httponly", "samesite=lax"} <= set(attributes)
    assert not any(part.startswith("domain") for part in attributes)
    assert dropped_state.startswith("nufi_lab_state=;") and "max-age=0" in dropped_state.lower()
    cookie = lab_cookie.split(";", 1)[0].partition("=")[2]
    assert session not in cookie

    page = await client.get(f"/labs/{project}/lab/tree", headers=on_lab(site, project, cookie, state=state))
    assert page.status_code == 200, page.text
    upstream_headers = dict(page.json()["headers"])
    assert "cookie" not in upstream_headers, "NuFi's cookies must not reach the lab"

    grant_refused(await client.get(grant_url, headers=on_lab(site, project, state=state)))


async def test_the_api_names_the_dashboard_entry_and_the_labs_own_origin(
    client: httpx.AsyncClient, site: Site, world: World, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    opens_at = f"{site.lab_origin(project)}/labs/{project}/lab/"
    listed = await client.get(f"/api/v1/projects/{project}/labs", headers=world.user)
    one = await client.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)
    for view in (*listed.json()["items"], one.json()):
        assert (view["url"], view["origin_url"]) == (f"/labs/{project}/lab/", opens_at)
    # Following `url` on the dashboard signs the browser in to the lab and lands at `origin_url`.
    session = await sign_in(client, "user", "user")
    grant_url, state = await to_grant(client, site, session, project, "")
    exchanged = await exchange(client, site, project, grant_url, state)
    assert site.lab_origin(project) + exchanged.headers["location"] == opens_at
    schema = (await client.get("/openapi.json")).json()["components"]["schemas"]["LabView"]
    assert "origin_url" in schema["required"]
    assert {"type": "null"} in schema["properties"]["origin_url"]["anyOf"]


async def test_a_grant_opens_only_in_the_browser_that_asked_for_it(
    client: httpx.AsyncClient, site: Site, world: World, two_labs: tuple[str, str]
) -> None:
    # Someone's grant — read from a log, or obtained for their own session and slipped to another
    # browser — opens nothing without that browser's state cookie.
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    grant_url, state = await to_grant(client, site, session, project)
    _, other_state = await to_grant(client, site, session, project)
    for cookies in ({}, {"state": other_state}):
        grant_refused(await client.get(grant_url, headers=on_lab(site, project, **cookies)))
    assert (await client.get(grant_url, headers=on_lab(site, project, state=state))).status_code == 303
    # The lab's host sends the state to the configured dashboard only, whatever address it is handed.
    next_path = f"/labs/{project}/lab/tree"
    started = await client.get(
        "/_nufi/lab-signin",
        params={"next": next_path, "return": "https://evil.example"},
        headers=on_lab(site, project),
    )
    assert started.headers["location"].startswith(f"{site.url}/_nufi/lab-grant?")
    for bad in (f"/labs/{project}/other/tree", "https://evil.example/", "/api/v1/projects"):
        refused = await client.get("/_nufi/lab-signin", params={"next": bad}, headers=on_lab(site, project))
        assert refused.status_code == 400, bad
        assert refused.json()["field"] == "next"
    # Asked for a grant without a dashboard session, the dashboard signs the browser in first.
    anonymous = await client.get("/_nufi/lab-grant", params={"next": next_path, "state": "s" * 32})
    assert anonymous.status_code == 302
    assert urlsplit(anonymous.headers["location"]).path == "/auth/login"


@BOTH_KINDS
async def test_a_lab_cookie_opens_its_own_lab_only_and_the_dashboard_cookie_opens_no_lab_host(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str], lab_kind: str
) -> None:
    first, second = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await lab_cookie(client, site, session, first)
    # The first lab's cookie, carried to the second lab's host (or path), opens nothing there.
    other_host = await client.get(f"/labs/{second}/lab/tree", headers=on_lab(site, second, cookie))
    assert other_host.status_code == 401
    other_path = await client.get(f"/labs/{second}/lab/tree", headers=on_lab(site, first, cookie))
    assert other_path.status_code == 404
    # A grant for the first lab, shown at the second lab's host (with a path there), is refused there.
    grant_url, state = await to_grant(client, site, session, first)
    grant = parse_qs(urlsplit(grant_url).query)["grant"][0]
    elsewhere = await client.get(
        "/_nufi/lab-signin",
        params={"grant": grant, "next": f"/labs/{second}/lab/tree"},
        headers=on_lab(site, second, state=state),
    )
    grant_refused(elsewhere)
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
    # Nor does it open the lab's WebSocket on the dashboard's origin, whichever origin the page is on.
    for origin in (site.url, site.lab_origin(first)):
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                f"ws://127.0.0.1:{site.port}/labs/{first}/lab/{SOCKET_PATHS[lab_kind]}",
                origin=Origin(origin),
                additional_headers={"Cookie": f"nufi_lab={cookie}"},
            ):
                pass
        assert refused.value.response.status_code == 401, origin


async def test_a_lab_host_serves_its_lab_and_nothing_else(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await lab_cookie(client, site, session, project)
    for path in (
        "/",
        "/api/v1/projects",
        "/auth/login",
        "/labs/",
        "/monitoring",
        f"/labs/{project}/other/tree",
    ):
        answer = await client.get(path, headers=on_lab(site, project, cookie, Accept="text/html"))
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
        f"/labs/{project}/lab/tree", params={"a": "1"}, headers=on_lab(site, project, **HTML)
    )
    assert answer.status_code == 302
    location = urlsplit(answer.headers["location"])
    assert location.path == "/_nufi/lab-signin" and not location.netloc
    assert parse_qs(location.query) == {"next": [f"/labs/{project}/lab/tree?a=1"]}
    started = await client.get(answer.headers["location"], headers=on_lab(site, project))
    assert started.headers["location"].startswith(f"{site.url}/_nufi/lab-grant?")


async def test_the_lab_cookie_ends_with_the_dashboard_session(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await lab_cookie(client, site, session, project)
    assert (
        await client.get(f"/labs/{project}/lab/tree", headers=on_lab(site, project, cookie))
    ).status_code == 200
    unspent, state = await to_grant(client, site, session, project)
    out = await client.post("/auth/logout", headers={"Cookie": f"nufi_session={session}", "Origin": site.url})
    assert out.status_code in (302, 303), out.text
    after = await client.get(f"/labs/{project}/lab/tree", headers=on_lab(site, project, cookie))
    assert after.status_code == 401
    grant_refused(await client.get(unspent, headers=on_lab(site, project, state=state)))


async def test_the_lab_cookie_ends_with_the_membership(
    client: httpx.AsyncClient, site: Site, world: World, two_labs: tuple[str, str]
) -> None:
    project, _ = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await lab_cookie(client, site, session, project)
    unspent, state = await to_grant(client, site, session, project)
    removed = await client.delete(f"/api/v1/admin/projects/{project}/members/user", headers=world.admin)
    assert removed.status_code in (200, 204), removed.text

    async def refused() -> bool:
        answer = await client.get(f"/labs/{project}/lab/tree", headers=on_lab(site, project, cookie))
        return answer.status_code == 403

    # Who may open which lab is remembered for at most 5 s (the proxy's route cache).
    await until(refused, within=15)
    late = await client.get(unspent, headers=on_lab(site, project, state=state))
    assert late.status_code == 403


@BOTH_KINDS
async def test_cookie_callers_change_things_and_open_sockets_only_from_the_lab_s_origin(
    client: httpx.AsyncClient, site: Site, two_labs: tuple[str, str], lab_kind: str
) -> None:
    project, other = two_labs
    session = await sign_in(client, "user", "user")
    cookie = await lab_cookie(client, site, session, project)
    own = site.lab_origin(project)
    path = f"/labs/{project}/lab/{CHANGE_PATHS[lab_kind]}"
    # Where the lab itself is asked: Jupyter under the lab's path, code-server at its root.
    upstream = {"jupyter": path, "vscode": "/" + CHANGE_PATHS["vscode"]}[lab_kind]
    for origin in (site.lab_origin(other), site.url, "http://evil.example", "null", None):
        headers = on_lab(site, project, cookie)
        if origin is not None:
            headers["Origin"] = origin
        refused = await client.post(path, content=b"{}", headers=headers)
        assert refused.status_code == 403, origin
        assert refused.json()["type"] == "origin-refused", origin
    accepted = await client.post(path, content=b"{}", headers=on_lab(site, project, cookie, Origin=own))
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["path"] == upstream

    for origin in (site.lab_origin(other), site.url, "http://evil.example", "null"):
        with pytest.raises(InvalidStatus) as foreign:
            async with cookie_socket(site, project, cookie, origin, lab_kind):
                pass
        assert foreign.value.response.status_code == 403, origin
        assert json.loads(foreign.value.response.body)["type"] == "origin-refused", origin
    async with cookie_socket(site, project, cookie, own, lab_kind) as socket_:
        hello = json.loads(await socket_.recv())
        assert hello["cookie"] is None
        socket_path = {
            "jupyter": f"/labs/{project}/lab/{SOCKET_PATHS['jupyter']}",
            "vscode": f"/{CODE_SERVER_SOCKET}",
        }
        assert hello["path"] == socket_path[lab_kind]


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
        assert made.json()["origin_url"] == f"{site.lab_origin(project)}/notebook/{project}/lab/"
        session = await sign_in(client, "user", "user")
        grant_url, state = await to_grant(client, site, session, project)
        assert parse_qs(urlsplit(grant_url).query)["next"] == [f"/notebook/{project}/lab/tree"]
        exchanged = await client.get(grant_url, headers=on_lab(site, project, state=state))
        assert exchanged.headers["location"] == f"/notebook/{project}/lab/tree"
        cookie = exchanged.headers["set-cookie"].split(";", 1)[0].partition("=")[2]
        page = await client.get(f"/notebook/{project}/lab/tree", headers=on_lab(site, project, cookie))
        assert page.status_code == 200, page.text
        assert page.json()["path"] == f"/notebook/{project}/lab/tree"
    finally:
        await client.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)
