"""The lab proxy over a real socket: NuFi on loopback, every lab's Service reached at a stand-in lab
server (the cluster-dns route with its URL template pointing at it). HTTP with every method and bodies
streamed both ways, hop-by-hop headers and NuFi's credentials kept back, WebSockets with their
subprotocol, and who is let through."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.responses import HTMLResponse
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from nufi.api import create_app
from support.asgi import serving
from support.loopback import closed_port
from support.world import World

from . import upstream
from .labs_world import behind_services_proxy, lab_body, lab_settings, make_lab, running
from .sign_in import sign_in


def _seen(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    seen: dict[str, Any] = response.json()
    return seen


def _headers(seen: dict[str, Any]) -> dict[str, str]:
    return {name: value for name, value in seen["headers"]}


def _ws(url: str) -> str:
    return url.replace("http://", "ws://", 1)


async def test_a_member_reaches_the_lab_under_its_prefix(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await make_lab(nufi, world, project)
    response = await nufi.get(
        f"/labs/{project}/lab/api/contents/my%20notebook.ipynb",
        params={"type": "notebook"},
        headers={
            **world.user,
            "Cookie": "nufi_session=not-for-the-lab; _xsrf=lab-token",
            "Connection": "x-mine, keep-alive",
            "X-Mine": "hop",
            "Keep-Alive": "timeout=5",
            "TE": "trailers",
            "X-Lab-Header": "end-to-end",
        },
    )
    seen = _seen(response)
    # Jupyter serves under the prefix itself: the whole path goes on, encoded as it came.
    assert seen["raw_path"] == f"/labs/{project}/lab/api/contents/my%20notebook.ipynb"
    assert seen["query"] == "type=notebook"
    headers = _headers(seen)
    assert "authorization" not in headers
    assert headers["cookie"] == "_xsrf=lab-token"
    # Hop-by-hop, and what the caller's Connection header named: the lab's hop is aiohttp's own.
    assert not {"x-mine", "keep-alive", "te"} & set(headers), headers
    assert "x-mine" not in headers.get("connection", "")
    assert headers["x-lab-header"] == "end-to-end"
    assert headers["x-forwarded-proto"] == "http"
    # Back: the lab's hop-by-hop header stays behind, its end-to-end ones and cookies come through.
    assert "x-upstream-hop" not in response.headers
    assert response.headers["x-upstream-end"] == "kept"
    assert response.cookies.get("_xsrf") == "lab-cookie"
    assert "nufi_session" not in response.cookies


async def test_every_method_goes_through(nufi: httpx.AsyncClient, world: World, project: str) -> None:
    await make_lab(nufi, world, project)
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"):
        response = await nufi.request(method, f"/labs/{project}/lab/api/x", headers=world.user, content=b"{}")
        assert _seen(response)["method"] == method
    head = await nufi.head(f"/labs/{project}/lab/api/x", headers=world.user)
    assert head.status_code == 200 and head.content == b""


async def test_bodies_stream_both_ways_past_the_api_body_limit(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await make_lab(nufi, world, project)
    # Three times NUFI_MAX_REQUEST_BODY_BYTES: a lab's uploads are the lab's to limit.
    payload = bytes(range(256)) * (3 * 4096)

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(payload), 65536):
            yield payload[start : start + 65536]

    streamed = await nufi.put(f"/labs/{project}/lab/api/upload", content=chunks(), headers=world.user)
    seen = _seen(streamed)
    assert seen["body_bytes"] == len(payload)
    assert seen["body_sha256"] == hashlib.sha256(payload).hexdigest()
    sized = await nufi.post(f"/labs/{project}/lab/api/upload", content=payload, headers=world.user)
    assert _seen(sized)["body_sha256"] == hashlib.sha256(payload).hexdigest()

    pieces: list[bytes] = []
    async with nufi.stream("GET", f"/labs/{project}/lab/stream", headers=world.user) as response:
        assert response.status_code == 200
        assert "content-length" not in response.headers
        async for piece in response.aiter_raw():
            pieces.append(piece)
    assert b"".join(pieces) == b"".join(f"chunk {i}\n".encode() for i in range(upstream.STREAM_CHUNKS))
    assert len(pieces) > 1, "the answer was buffered, not streamed"


async def test_an_upload_cut_off_by_the_caller_never_reaches_the_lab_as_whole(
    nufi_url: str, nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await make_lab(nufi, world, project)
    before = len(upstream.RECORDED)
    port = int(nufi_url.rsplit(":", 1)[1])
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (
            f"PUT /labs/{project}/lab/api/record HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: {world.user['Authorization']}\r\nTransfer-Encoding: chunked\r\n\r\n"
            "5\r\nhalf-\r\n"
        ).encode()
    )
    await writer.drain()
    # The caller hangs up in the middle of its body.
    writer.close()
    await writer.wait_closed()
    whole = b"the whole upload"
    # A complete upload after it: once it has arrived, the cut-off one would have too.
    assert _seen(await nufi.put(f"/labs/{project}/lab/api/record", content=whole, headers=world.user))
    # Only the whole one arrived as a whole upload: the cut-off one broke the lab's connection, and
    # no shorter body (empty, or its first chunk) passed for a complete one.
    assert upstream.RECORDED[before:] == [whole]


async def test_a_path_without_its_slash_is_redirected(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await make_lab(nufi, world, project)
    response = await nufi.get(f"/labs/{project}/lab", params={"a": "1"}, headers=world.user)
    assert response.status_code == 307
    assert response.headers["location"] == f"/labs/{project}/lab/?a=1"


async def test_a_lab_serving_at_the_root_gets_the_prefix_taken_off_and_put_back(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await make_lab(nufi, world, project, "code", kind="vscode")
    seen = _seen(await nufi.get(f"/labs/{project}/code/static/app.js", headers=world.user))
    assert seen["raw_path"] == "/static/app.js"
    moved = await nufi.get(f"/labs/{project}/code/redirect", params={"to": "/login"}, headers=world.user)
    assert moved.status_code == 302
    assert moved.headers["location"] == f"/labs/{project}/code/login"


async def test_who_gets_through(
    nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str
) -> None:
    await make_lab(nufi, world, project)
    admin_lab = await nufi.post(
        f"/api/v1/projects/{foreign_project}/labs", json=lab_body(), headers=world.admin
    )
    assert admin_lab.status_code == 201, admin_lab.text
    path = f"/labs/{project}/lab/tree/my%20folder"

    browser = await nufi.get(path, params={"a": "1"}, headers={"Accept": "text/html,application/xhtml+xml"})
    assert browser.status_code == 302
    location = urlsplit(browser.headers["location"])
    assert location.path == "/auth/login"
    assert parse_qs(location.query) == {"next": [f"{path}?a=1"]}

    for method in ("GET", "POST"):
        anonymous = await nufi.request(method, path, headers={"Accept": "application/json"})
        assert anonymous.status_code == 401, method
        assert anonymous.headers["content-type"].startswith("application/problem+json")
        assert anonymous.headers["www-authenticate"].startswith("Bearer")
    forged = await nufi.get(path, headers={"Authorization": "Bearer not-a-jwt"})
    assert forged.status_code == 401

    stranger = await nufi.get(f"/labs/{foreign_project}/lab/tree", headers=world.user)
    assert stranger.status_code == 403
    assert stranger.headers["content-type"].startswith("application/problem+json")
    assert "not a member" in stranger.json()["detail"]
    # An absent project looks the same to a non-member; an absent lab is 404 to a member.
    assert (await nufi.get("/labs/p-absent/lab/tree", headers=world.user)).status_code == 403
    assert (await nufi.get(f"/labs/{project}/nope/tree", headers=world.user)).status_code == 404

    assert _seen(await nufi.get(f"/labs/{foreign_project}/lab/tree", headers=world.admin))["method"] == "GET"
    assert _seen(await nufi.get(path, headers=world.admin))["method"] == "GET"


async def test_without_a_lab_base_domain_the_dashboard_session_opens_no_lab(
    nufi_url: str, world: World, nufi: httpx.AsyncClient, project: str
) -> None:
    # Labs open in a browser only on an origin of their own (test_lab_origins.py); with none
    # configured the dashboard's session is refused at every lab path, the problem naming the setting.
    await make_lab(nufi, world, project)
    async with httpx.AsyncClient(base_url=nufi_url, timeout=30) as browser:
        session = await sign_in(browser, "user", "user", next_path=f"/labs/{project}/lab/")
        for accept in ("text/html", "application/json"):
            page = await browser.get(
                f"/labs/{project}/lab/tree", headers={"Cookie": f"nufi_session={session}", "Accept": accept}
            )
            assert page.status_code == 403, accept
            assert page.json()["type"] == "lab-origin-unset"
            assert "NUFI_LAB_BASE_DOMAIN" in page.json()["detail"]
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                _ws(f"{nufi_url}/labs/{project}/lab/api/kernels/k1/socket"),
                additional_headers={"Cookie": f"nufi_session={session}"},
            ):
                pass
        assert refused.value.response.status_code == 403


async def test_a_kernel_websocket_goes_through(
    nufi_url: str, nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await make_lab(nufi, world, project)
    url = _ws(f"{nufi_url}/labs/{project}/lab/api/kernels/k1/socket?session_id=s1")
    protocol = "v1.kernel.websocket.jupyter.org"
    async with connect(url, additional_headers=world.user, subprotocols=[protocol]) as socket:  # type: ignore[list-item]
        assert socket.subprotocol == protocol
        hello = json.loads(await socket.recv())
        assert hello["path"] == f"/labs/{project}/lab/api/kernels/k1/socket"
        assert hello["authorization"] is None
        await socket.send("hello")
        assert await socket.recv() == "echo: hello"
        await socket.send(b"\x01\x02\x03")
        assert await socket.recv() == b"\x03\x02\x01"
        await socket.send("close please")
        with pytest.raises(ConnectionClosed):
            await socket.recv()
        assert socket.close_code == 4001


async def test_websockets_refuse_strangers(
    nufi_url: str, nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str
) -> None:
    await make_lab(nufi, world, project)
    assert (
        await nufi.post(f"/api/v1/projects/{foreign_project}/labs", json=lab_body(), headers=world.admin)
    ).status_code == 201
    with pytest.raises(InvalidStatus) as anonymous:
        async with connect(_ws(f"{nufi_url}/labs/{project}/lab/api/kernels/k/socket")):
            pass
    assert anonymous.value.response.status_code == 401
    with pytest.raises(InvalidStatus) as stranger:
        async with connect(
            _ws(f"{nufi_url}/labs/{foreign_project}/lab/api/kernels/k/socket"), additional_headers=world.user
        ):
            pass
    assert stranger.value.response.status_code == 403
    async with connect(
        _ws(f"{nufi_url}/labs/{foreign_project}/lab/api/kernels/k/socket"), additional_headers=world.admin
    ) as socket:
        assert json.loads(await socket.recv())["path"].endswith("/socket")


async def test_a_notebook_lab_serves_at_the_controllers_path(
    nufi_url: str, nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str, notebooks: None
) -> None:
    await make_lab(nufi, world, project)
    moved = await nufi.get(f"/labs/{project}/lab/tree/a%20b", params={"x": "1"}, headers=world.user)
    assert moved.status_code == 307
    assert moved.headers["location"] == f"/notebook/{project}/lab/tree/a%20b?x=1"
    seen = _seen(await nufi.get(f"/notebook/{project}/lab/tree", headers=world.user))
    assert seen["raw_path"] == f"/notebook/{project}/lab/tree"
    assert (await nufi.get(f"/notebook/{foreign_project}/lab/tree", headers=world.user)).status_code == 403
    assert (await nufi.get(f"/notebook/{project}/lab/tree")).status_code == 401
    async with connect(
        _ws(f"{nufi_url}/notebook/{project}/lab/api/kernels/k/socket"), additional_headers=world.user
    ) as socket:
        assert json.loads(await socket.recv())["path"] == f"/notebook/{project}/lab/api/kernels/k/socket"


async def test_a_lab_that_does_not_answer_is_a_502(
    world: World, tmp_path: Any, project: str, nufi: httpx.AsyncClient
) -> None:
    await make_lab(nufi, world, project)
    settings = lab_settings(
        world,
        f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}",
        lab_route="cluster-dns",
        lab_cluster_dns_url=f"http://127.0.0.1:{closed_port()}",
    )
    async with running(settings) as url, httpx.AsyncClient(base_url=url, timeout=30) as client:
        response = await client.get(f"/labs/{project}/lab/tree", headers=world.user)
        assert response.status_code == 502
        problem = response.json()
        assert problem["type"] == "lab-unreachable"
        assert f"/api/v1/projects/{project}/labs/lab" in problem["detail"]
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                _ws(f"{url}/labs/{project}/lab/api/kernels/k/socket"), additional_headers=world.user
            ):
                pass
        assert refused.value.response.status_code == 502


async def test_what_the_services_proxy_rewrote_is_put_back(
    world: World, lab_server: str, tmp_path: Any, project: str, nufi: httpx.AsyncClient
) -> None:
    await make_lab(nufi, world, project)
    async with behind_services_proxy(world, lab_server, tmp_path, client_timeout=30) as client:
        prefix = f"/labs/{project}/lab/"
        seen = _seen(await client.get(f"{prefix}api/x", headers=world.user))
        # The lab is asked for its own path, under the proxy's, uncompressed so links can be put back.
        assert seen["path"] == f"/api/v1/namespaces/{project}/services/lab:80/proxy{prefix}api/x"
        assert _headers(seen)["accept-encoding"] == "identity"
        page = await client.get(f"{prefix}page.html", headers=world.user)
        assert page.status_code == 200
        assert page.text == (
            f"<html><a href='{prefix}tree'>tree</a> <script src=\"{prefix}static/a.js\"></script></html>"
        )
        assert page.headers["content-length"] == str(len(page.content))
        proxied = f"/api/v1/namespaces/{project}/services/lab:80/proxy"
        moved = await client.get(
            f"{prefix}redirect", params={"to": f"{proxied}{prefix}login"}, headers=world.user
        )
        assert moved.status_code == 302
        assert moved.headers["location"] == f"{prefix}login"


async def test_the_proxy_is_there_when_only_the_dashboard_is_served(world: World, tmp_path: Any) -> None:
    app = create_app(lab_settings(world, f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"), api=False)
    async with serving(app, client_timeout=30) as client:
        assert (await client.get("/api/v1/projects/p-x/labs", headers=world.user)).status_code == 404
        anonymous = await client.get("/labs/p-x/lab/tree")
        assert anonymous.status_code == 401
        assert anonymous.headers["content-type"].startswith("application/problem+json")
        assert (await client.get("/labs/p-x/lab/tree", headers=world.user)).status_code == 403


async def test_a_lab_path_no_lab_can_have_is_a_404_problem_not_the_dashboard_s_page(
    world: World, tmp_path: Any
) -> None:
    # `nufi serve` mounts the dashboard at the root, whose page answers any unknown URL with HTML; a
    # stand-in does the same here (NiceGUI's app is one per process). Lab paths stay the proxy's.
    app = create_app(lab_settings(world, f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"))

    async def dashboard(scope: Any, receive: Any, send: Any) -> None:
        await HTMLResponse("<!doctype html><title>NuFi</title>", status_code=404)(scope, receive, send)

    app.mount("/", dashboard)
    async with serving(app, client_timeout=30) as client:
        assert (await client.get("/no/such/page")).headers["content-type"].startswith("text/html")
        for path in ("/labs/Not_A_Label/x/tree", "/labs/", "/notebook/p-x/%F0%9F%98%80/lab"):
            answer = await client.get(path, headers=world.user)
            assert answer.status_code == 404, (path, answer.text)
            assert answer.headers["content-type"] == "application/problem+json", path
            assert "DNS labels" in answer.json()["detail"]
