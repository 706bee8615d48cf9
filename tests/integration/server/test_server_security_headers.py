"""The headers that tell a browser what NuFi's answers may do: nosniff, the referrer policy and the
Content-Security-Policy, on the API's answers, its problems, the dashboard's pages and its static
files (`nufi serve` as a process, signed in through the dev identity provider), FastAPI's docs, the
lab proxy's paths and the last-resort 500, never replacing a header an answer sets itself.

The session cookie's flags are held elsewhere: HttpOnly, SameSite=Lax and no Secure on loopback by
tests/integration/auth/test_auth_web_sessions.py::test_sign_in_sets_a_server_side_session, Secure off
loopback by ::test_the_cookie_is_secure_off_loopback, and in Chromium by
tests/e2e/dashboard/test_e2e_dashboard.py::test_an_admin_signs_in_through_a_deep_link_and_sees_the_admin_pages.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import yaml
from fastapi import FastAPI
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

from integration.labs.sign_in import sign_in
from nufi.api import create_app
from nufi.api.edge.security_headers import SecurityHeadersMiddleware
from nufi.config import Settings
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.asgi import serving
from support.env import env_without_nufi
from support.nufi_app import MEMORY_DATABASE, bearer
from support.nufi_serve import stop

NUFI = Path(sys.executable).parent / "nufi"
LISTENING = "NuFi listening on "
CLIENT_SECRET = "security-headers-client-secret"
REALM: dict[str, Any] = {
    "users": [{"username": "admin", "password": "admin-pw", "roles": ["nufi-admin"]}],
    "clients": [
        {"id": "nufi-cli", "public": True},
        # Any loopback port: the server picks its own.
        {"id": "nufi-dashboard", "secret": CLIENT_SECRET, "redirect_uris": ["http://127.0.0.1:*"]},
    ],
}
FRAME_NONE = "frame-ancestors 'none'"


pytestmark = pytest.mark.usefixtures("clean_env")


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def directives(response: httpx.Response) -> dict[str, list[str]]:
    """The response's Content-Security-Policy as {directive: sources}; it must carry exactly one."""
    (policy,) = response.headers.get_list("content-security-policy")
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        assert name not in parsed, f"{name} given twice in {policy!r}"
        parsed[name] = sources
    return parsed


def assert_common(response: httpx.Response) -> None:
    assert response.headers.get_list("x-content-type-options") == ["nosniff"]
    assert response.headers.get_list("referrer-policy") == ["same-origin"]


def assert_not_a_page(response: httpx.Response) -> None:
    """What every answer of NuFi that is not an HTML page carries: nothing to load, no framing."""
    assert_common(response)
    assert directives(response) == {"default-src": ["'none'"], "frame-ancestors": ["'none'"]}


def assert_dashboard_page(response: httpx.Response, issuer_origin: str) -> dict[str, list[str]]:
    assert_common(response)
    policy = directives(response)
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["default-src"] == ["'self'"]
    # What NiceGUI needs: its inline start-up script, Vue's template compiler, Quasar's inline styles.
    assert set(policy["script-src"]) == {"'self'", "'unsafe-inline'", "'unsafe-eval'"}
    assert set(policy["style-src"]) == {"'self'", "'unsafe-inline'"}
    # socket.io reaches NuFi's own origin only, over ws: too ('self' covers it).
    assert policy["connect-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    # Sign-out is a form whose answer redirects to the issuer: the form may go there, nowhere else.
    assert policy["form-action"] == ["'self'", issuer_origin]
    return policy


# --- `nufi serve`: the API and the dashboard in one process, as deployed ------------------------------


@dataclass
class Server:
    url: str
    idp: IdentityProviderProcess

    @property
    def issuer_origin(self) -> str:
        return origin(self.idp.issuer)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("security-headers")
    realm = work / "realm.yaml"
    realm.write_text(yaml.safe_dump(REALM))
    idp = IdentityProviderProcess(work / "idp", users_file=realm).start()
    output = work / "nufi.out"
    env = env_without_nufi(
        NUFI_DATABASE_URL=f"sqlite+aiosqlite:///{work / 'nufi.db'}",
        NUFI_OIDC_ISSUER=idp.issuer,
        NUFI_OIDC_CLIENT_ID="nufi-dashboard",
        NUFI_OIDC_CLIENT_SECRET=CLIENT_SECRET,
        NUFI_DASHBOARD_SESSION_SECRET="security-headers-session-secret",
        NUFI_THERMAL_ENABLED="false",
        NUFI_LOG_FORMAT="json",
    )
    with open(output, "wb") as sink:
        process = subprocess.Popen(
            [str(NUFI), "serve", "--host", "127.0.0.1", "--port", "0"],
            cwd=work,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        yield Server(_listening_url(process, output), idp)
    finally:
        stop(process)
        idp.stop()


def _listening_url(process: subprocess.Popen[bytes], output: Path) -> str:
    deadline = time.monotonic() + 60
    while True:
        text = output.read_text(errors="replace")
        found = re.search(rf"^{LISTENING}(\S+)$", text, re.MULTILINE)
        if found:
            return found[1]
        assert process.poll() is None, f"nufi serve exited with {process.returncode}:\n{text}"
        assert time.monotonic() < deadline, f"nufi serve printed no listening URL within 60 s:\n{text}"
        time.sleep(0.1)


@pytest.fixture
async def client(server: Server) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.url, timeout=15.0) as http:
        yield http


async def test_api_answers_and_problems_carry_the_headers(server: Server, client: httpx.AsyncClient) -> None:
    version = await client.get("/api/v1/version")
    assert version.status_code == 200 and version.headers["content-type"] == "application/json"
    assert_not_a_page(version)

    anonymous = await client.get("/api/v1/devices")
    assert anonymous.status_code == 401
    assert anonymous.headers["content-type"] == "application/problem+json"
    assert_not_a_page(anonymous)

    token = server.idp.password_token("admin", "admin-pw")
    missing = await client.get("/api/v1/devices/no-such-type", headers=bearer(token))
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert_not_a_page(missing)

    # Refused by the request guard before any route runs.
    refused = await client.post("/api/v1/admin/devices", content=b"{}", headers={"Content-Type": "x"})
    assert refused.status_code == 401
    assert_not_a_page(refused)


async def test_the_dashboard_pages_and_their_static_files_carry_the_headers(
    server: Server, client: httpx.AsyncClient
) -> None:
    sent_to_sign_in = await client.get("/", follow_redirects=False)
    assert sent_to_sign_in.status_code == 303
    assert sent_to_sign_in.headers["location"].startswith("/auth/login")
    assert_not_a_page(sent_to_sign_in)
    to_issuer = await client.get("/auth/login", follow_redirects=False)
    assert to_issuer.status_code == 302 and to_issuer.headers["location"].startswith(server.idp.issuer)
    assert_not_a_page(to_issuer)

    # A sign-in page of NuFi's own (this one says the sign-in was not started here).
    stray = await client.get("/auth/callback", params={"state": "s", "code": "c"})
    assert stray.status_code == 400 and stray.headers["content-type"].startswith("text/html")
    assert_dashboard_page(stray, server.issuer_origin)

    session = await sign_in(client, "admin", "admin-pw")
    page = await client.get("/", headers={"Cookie": f"nufi_session={session}"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "/_nicegui/" in page.text  # NiceGUI's page, not a stand-in
    assert_dashboard_page(page, server.issuer_origin)

    assets = re.findall(r"""["'](/_nicegui/[^"'?]+/static/[^"'?]+\.(?:js|css))["']""", page.text)
    assert assets, page.text[:2000]
    asset = await client.get(assets[0])
    assert asset.status_code == 200
    assert_not_a_page(asset)
    # NiceGUI's own header on its files is left as it was.
    assert "immutable" in asset.headers["cache-control"]

    # NiceGUI answers paths nobody routes with an HTML page of its own.
    unknown = await client.get("/no/such/page")
    assert unknown.status_code == 404 and unknown.headers["content-type"].startswith("text/html")
    assert_dashboard_page(unknown, server.issuer_origin)


# --- the API app in memory: what only a stand-in route can show ---------------------------------------


def _app(**settings: Any) -> FastAPI:
    return create_app(Settings(**{"database_url": MEMORY_DATABASE, **settings}))


async def test_a_header_an_answer_sets_itself_is_kept() -> None:
    app = _app(oidc_issuer="https://sso.example.com/realms/super-llm")
    own = {
        "Content-Security-Policy": "sandbox",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }

    @app.get("/test/own-headers")
    async def own_headers() -> Response:
        return PlainTextResponse("mine", headers=own)

    async with serving(app) as http:
        response = await http.get("/test/own-headers")
    for name, value in own.items():
        assert response.headers.get_list(name) == [value], name


async def test_the_api_docs_may_load_what_fastapi_loads_them_from() -> None:
    async with serving(_app(oidc_issuer="https://sso.example.com/realms/super-llm")) as http:
        docs = await http.get("/docs")
        redoc = await http.get("/redoc")
        document = await http.get("/openapi.json")
    for page in (docs, redoc):
        assert page.status_code == 200
        assert_common(page)
        policy = directives(page)
        assert policy["frame-ancestors"] == ["'none'"]
        assert "https://cdn.jsdelivr.net" in policy["script-src"]
        assert "https://cdn.jsdelivr.net" in policy["style-src"]
    # Every script, stylesheet and icon the pages name comes from a source their policy allows.
    for page in (docs, redoc):
        policy = directives(page)
        for url in re.findall(r"""<script[^>]+src=["'](https://[^"']+)""", page.text):
            assert origin(url) in policy["script-src"], url
        for url in re.findall(r"""<link[^>]+href=["'](https://[^"']+)""", page.text):
            assert origin(url) in policy["style-src"] + policy["img-src"], url
    assert_not_a_page(document)


async def test_the_last_resort_500_carries_the_headers() -> None:
    app = _app()

    @app.get("/test/broken")
    async def broken() -> None:
        raise RuntimeError("broken on purpose")

    async with serving(app) as http:
        response = await http.get("/test/broken")
    assert response.status_code == 500
    assert_not_a_page(response)


async def test_the_lab_proxy_paths_leave_the_labs_own_policy_alone() -> None:
    async with serving(_app()) as http:
        # Anonymous: the lab proxy's own 401, on a lab path.
        refused = await http.get("/labs/team-a/lab/api/contents")
        not_a_lab = await http.get("/labs")
    assert refused.status_code == 401
    assert_common(refused)
    # On the dashboard's origin every lab answer is sandboxed by the proxy, its own refusals too.
    assert directives(refused) == {"sandbox": [], "frame-ancestors": ["'none'"]}
    # `/labs` alone (the dashboard's Labs page) is no lab's: NuFi's own policy holds there.
    assert FRAME_NONE in not_a_lab.headers["content-security-policy"]

    # What a lab answers, passed back by the proxy, behind the middleware (no cluster needed).
    async def lab(scope: Scope, receive: Receive, send: Send) -> None:
        own = (
            {"Content-Security-Policy": "frame-ancestors 'self'; report-uri /x"}
            if "own" in scope["path"]
            else {}
        )
        await Response("<html>lab</html>", media_type="text/html", headers=own)(scope, receive, send)

    wrapped = SecurityHeadersMiddleware(lab, issuer="https://sso.example.com/realms/super-llm")
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=wrapped), base_url="http://nufi.test"
    ) as http:
        plain = await http.get("/labs/team-a/lab/lab/tree")
        jupyter = await http.get("/notebook/team-a/lab/own/lab")
    assert_common(plain)
    # No dashboard policy on the lab's own page: JupyterLab and VS Code need what NuFi cannot know.
    assert directives(plain) == {"frame-ancestors": ["'self'"]}
    assert jupyter.headers.get_list("content-security-policy") == ["frame-ancestors 'self'; report-uri /x"]
