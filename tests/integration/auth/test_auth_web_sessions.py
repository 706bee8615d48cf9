"""Dashboard sign-in end to end: NuFi (in memory) and the real dev identity provider, the browser
played by httpx following each redirect by hand."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import yaml
from fastapi import FastAPI, Request
from starlette.applications import Starlette

from nufi.api import create_app
from nufi.auth.web_sessions import session_hash
from nufi.auth.web_tokens import TokenCipher, TokenSet
from nufi.config import Settings
from nufi.ui import signin
from nufi.ui.i18n import Language, text
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.loopback import closed_port

SECRET = "web-sessions-test-secret"
CLIENT_SECRET = "dashboard-client-secret"
BASE = "http://127.0.0.1:8080"
REALM: dict[str, Any] = {
    "users": [
        {"username": "admin", "password": "admin-pw", "roles": ["nufi-admin"]},
        {"username": "user", "password": "user-pw"},
    ],
    "clients": [
        {"id": "nufi-dashboard", "secret": CLIENT_SECRET, "redirect_uris": [f"{BASE}/*"], "audience": "nufi"},
        # Tokens living 30 s: always within the minute before expiry, so every visit refreshes.
        {
            "id": "nufi-dashboard-short",
            "secret": CLIENT_SECRET,
            "redirect_uris": [f"{BASE}/*"],
            "audience": "nufi",
            "access_token_lifespan": 30,
        },
    ],
}


@pytest.fixture(scope="module")
def web_idp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IdentityProviderProcess]:
    work = tmp_path_factory.mktemp("web-idp")
    users = work / "realm.yaml"
    users.write_text(yaml.safe_dump(REALM))
    provider = IdentityProviderProcess(work, users_file=users).start()
    try:
        yield provider
    finally:
        provider.stop()


def settings_of(**values: Any) -> Settings:
    return Settings(**values)


def unreachable_issuer_settings(database: Path) -> Settings:
    """The dashboard's sign-in configured with an issuer nothing listens at."""
    return settings_of(
        database_url=f"sqlite+aiosqlite:///{database}",
        oidc_issuer=f"http://127.0.0.1:{closed_port()}/realms/super-llm",
        oidc_client_id="nufi-dashboard",
        dashboard_session_secret=SECRET,
    )


def dashboard_settings(idp: IdentityProviderProcess, database: Path, **values: Any) -> Settings:
    return Settings(
        **{
            "database_url": f"sqlite+aiosqlite:///{database}",
            "oidc_issuer": idp.issuer,
            "oidc_audience": "nufi",
            "oidc_client_id": "nufi-dashboard",
            "oidc_client_secret": CLIENT_SECRET,
            "dashboard_session_secret": SECRET,
            **values,
        }
    )


def dashboard_app(settings: Settings) -> FastAPI:
    """NuFi with the sign-in router, and a stand-in page that asks `signed_in` who is there."""
    app = create_app(settings)
    app.include_router(signin.router)

    @app.get("/test/whoami")
    async def whoami(request: Request) -> dict[str, Any]:
        principal = await signin.signed_in(request)
        if principal is None:
            return {"signed_in": False}
        return {"signed_in": True, "username": principal.username, "is_admin": principal.is_admin}

    return app


@asynccontextmanager
async def browsing(
    settings: Settings, base_url: str = BASE
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = dashboard_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base_url) as client,
    ):
        yield app, client


@dataclass
class SignIn:
    login: httpx.Response
    callback: httpx.Response
    session_id: str


async def sign_in(
    client: httpx.AsyncClient, username: str, password: str, *, next_path: str = "/monitoring"
) -> SignIn:
    login = await client.get("/auth/login", params={"next": next_path})
    assert login.status_code == 302, login.text
    async with httpx.AsyncClient(timeout=10.0) as browser:
        form_page = await browser.get(login.headers["location"])
        assert form_page.status_code == 200, form_page.text
        action = unescape(re.search(r"action='([^']+)'", form_page.text)[1])  # type: ignore[index]
        fields = {
            unescape(n): unescape(v) for n, v in re.findall(r"name='([^']+)' value='([^']*)'", form_page.text)
        }
        submitted = await browser.post(action, data={**fields, "username": username, "password": password})
    assert submitted.status_code == 302, submitted.text
    back = urlsplit(submitted.headers["location"])
    assert f"{back.scheme}://{back.netloc}" == BASE
    callback = await client.get(f"{back.path}?{back.query}")
    return SignIn(login, callback, client.cookies.get(signin.SESSION_COOKIE) or "")


def session_rows(database: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(database) as connection:
        return connection.execute("SELECT * FROM web_sessions").fetchall()


def stored_tokens(database: Path, session_id: str) -> TokenSet:
    id_hash = session_hash(session_id)
    with sqlite3.connect(database) as connection:
        (sealed,) = connection.execute(
            "SELECT tokens FROM web_sessions WHERE id_hash = ?", (id_hash,)
        ).fetchone()
    return TokenCipher(SECRET).open(sealed, session=id_hash)


async def test_sign_in_sets_a_server_side_session(web_idp: IdentityProviderProcess, tmp_path: Path) -> None:
    database = tmp_path / "nufi.db"
    async with browsing(dashboard_settings(web_idp, database)) as (_, client):
        done = await sign_in(client, "admin", "admin-pw")
        assert done.callback.status_code == 303
        assert done.callback.headers["location"] == "/monitoring"
        cookie = next(
            c for c in done.callback.headers.get_list("set-cookie") if c.startswith("nufi_session=")
        )
        flags = {part.strip().lower() for part in cookie.split(";")[1:]}
        assert {"httponly", "samesite=lax", "path=/"} <= flags
        assert "secure" not in flags  # 127.0.0.1: a developer's loopback has no TLS
        login_cookie = next(
            c for c in done.login.headers.get_list("set-cookie") if c.startswith("nufi_login=")
        )
        assert "path=/auth/callback" in login_cookie.lower() and "httponly" in login_cookie.lower()
        assert (await client.get("/test/whoami")).json() == {
            "signed_in": True,
            "username": "admin",
            "is_admin": True,
        }

    # Nothing in the row lets a reader of the database act as the user: no token, no session id.
    tokens = stored_tokens(database, done.session_id)
    (row,) = session_rows(database)
    text = repr(row)
    for secret in (tokens.access_token, tokens.refresh_token, tokens.id_token, done.session_id):
        assert secret and secret not in text
    # No JWT of any kind: a JWT is dot-joined base64url starting "eyJ"; the sealed text has no dots,
    # so a random "eyJ" inside it is not one.
    assert not re.search(r"eyJ[\w-]*\.[\w-]*\.", text)
    assert row[0] == session_hash(done.session_id)


async def test_a_user_is_signed_in_without_the_admin_role(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        await sign_in(client, "user", "user-pw")
        assert (await client.get("/test/whoami")).json() == {
            "signed_in": True,
            "username": "user",
            "is_admin": False,
        }


async def test_the_cookie_is_secure_off_loopback(web_idp: IdentityProviderProcess, tmp_path: Path) -> None:
    settings = dashboard_settings(
        web_idp, tmp_path / "nufi.db", dashboard_public_url="https://nufi.example.com"
    )
    async with browsing(settings, base_url="https://nufi.example.com") as (_, client):
        login = await client.get("/auth/login")
    assert login.status_code == 302
    assert "; secure" in login.headers["set-cookie"].lower()
    redirect = parse_qs(urlsplit(login.headers["location"]).query)["redirect_uri"]
    assert redirect == ["https://nufi.example.com/auth/callback"]


async def test_a_restart_does_not_sign_anyone_out(web_idp: IdentityProviderProcess, tmp_path: Path) -> None:
    settings = dashboard_settings(web_idp, tmp_path / "nufi.db")
    async with browsing(settings) as (_, client):
        done = await sign_in(client, "admin", "admin-pw")
    async with browsing(settings) as (_, client):
        client.cookies.set(signin.SESSION_COOKIE, done.session_id)
        assert (await client.get("/test/whoami")).json()["username"] == "admin"


async def test_pages_in_a_mounted_sub_app_find_the_services(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    # NiceGUI's pages get a request whose app is NiceGUI's, not NuFi's.
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        done = await sign_in(client, "user", "user-pw")
        cookie = f"{signin.SESSION_COOKIE}={done.session_id}".encode()
        request = Request({"type": "http", "app": Starlette(), "headers": [(b"cookie", cookie)]})
        principal = await signin.signed_in(request)
    assert principal is not None and principal.username == "user"


async def test_tokens_about_to_expire_are_refreshed(web_idp: IdentityProviderProcess, tmp_path: Path) -> None:
    database = tmp_path / "nufi.db"
    async with browsing(dashboard_settings(web_idp, database, oidc_client_id="nufi-dashboard-short")) as (
        _,
        client,
    ):
        done = await sign_in(client, "admin", "admin-pw")
        before = stored_tokens(database, done.session_id)
        assert (await client.get("/test/whoami")).json()["is_admin"] is True
        after = stored_tokens(database, done.session_id)
    assert after.access_token != before.access_token
    assert after.access_expires_at >= before.access_expires_at
    assert after.id_token  # still there for signing out


async def test_tokens_far_from_expiry_are_not_refreshed(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    database = tmp_path / "nufi.db"
    async with browsing(dashboard_settings(web_idp, database)) as (_, client):
        done = await sign_in(client, "admin", "admin-pw")
        before = stored_tokens(database, done.session_id)
        await client.get("/test/whoami")
    assert stored_tokens(database, done.session_id).access_token == before.access_token


async def test_a_refused_refresh_ends_the_session(web_idp: IdentityProviderProcess, tmp_path: Path) -> None:
    database = tmp_path / "nufi.db"
    async with browsing(dashboard_settings(web_idp, database, oidc_client_id="nufi-dashboard-short")) as (
        _,
        client,
    ):
        done = await sign_in(client, "admin", "admin-pw")
        # The session ends at the identity provider (signed out elsewhere, say).
        hint = stored_tokens(database, done.session_id).id_token
        async with httpx.AsyncClient() as browser:
            ended = await browser.get(
                f"{web_idp.issuer}/protocol/openid-connect/logout", params={"id_token_hint": hint}
            )
        assert ended.status_code == 200
        assert (await client.get("/test/whoami")).json() == {"signed_in": False}
    assert session_rows(database) == []


async def test_next_must_be_a_path_on_this_site(web_idp: IdentityProviderProcess, tmp_path: Path) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        done = await sign_in(client, "user", "user-pw", next_path="https://evil.example/steal")
        assert done.callback.headers["location"] == "/"
        again = await sign_in(client, "user", "user-pw", next_path="/monitoring?type=nvidia-gpu")
        assert again.callback.headers["location"] == "/monitoring?type=nvidia-gpu"


async def test_logout_ends_both_sessions(web_idp: IdentityProviderProcess, tmp_path: Path) -> None:
    database = tmp_path / "nufi.db"
    async with browsing(dashboard_settings(web_idp, database)) as (_, client):
        done = await sign_in(client, "admin", "admin-pw")
        id_token = stored_tokens(database, done.session_id).id_token
        out = await client.post("/auth/logout")
        assert out.status_code == 303
        target = urlsplit(out.headers["location"])
        assert (
            f"{target.scheme}://{target.netloc}{target.path}"
            == f"{web_idp.issuer}/protocol/openid-connect/logout"
        )
        query = parse_qs(target.query)
        assert query["id_token_hint"] == [id_token]
        assert query["post_logout_redirect_uri"] == [f"{BASE}/"]
        assert (
            'nufi_session=""' in out.headers["set-cookie"] or "max-age=0" in out.headers["set-cookie"].lower()
        )
        assert session_rows(database) == []
        # The identity provider accepts the hint and sends the browser back.
        async with httpx.AsyncClient() as browser:
            back = await browser.get(out.headers["location"])
        assert back.status_code == 302 and back.headers["location"] == f"{BASE}/"
        client.cookies.set(signin.SESSION_COOKIE, done.session_id)
        assert (await client.get("/test/whoami")).json() == {"signed_in": False}


# The pages in each language, every sentence of them: test_auth_web_pages.
LANGUAGES = pytest.mark.parametrize("language", ["ko", "en"])


def page_says(response: httpx.Response, language: Language, *keys: str) -> bool:
    shown = unescape(response.text)
    return f"<html lang='{language}'>" in response.text and all(text(language, key) in shown for key in keys)


@LANGUAGES
async def test_a_state_mismatch_is_a_page_not_a_500(
    web_idp: IdentityProviderProcess, tmp_path: Path, language: Language
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        await client.get("/auth/login")
        response = await client.get(
            "/auth/callback", params={"state": "forged", "code": "x"}, headers={"Accept-Language": language}
        )
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")
    assert page_says(response, language, "signin.unfinished.state", "signin.again")


@LANGUAGES
async def test_a_callback_without_its_cookie_is_a_page(
    web_idp: IdentityProviderProcess, tmp_path: Path, language: Language
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        response = await client.get(
            "/auth/callback", params={"state": "s", "code": "x"}, headers={"Accept-Language": language}
        )
    assert response.status_code == 400
    assert page_says(response, language, "signin.unfinished.title", "signin.again")


@LANGUAGES
async def test_denied_consent_is_a_page(
    web_idp: IdentityProviderProcess, tmp_path: Path, language: Language
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        await client.get("/auth/login")
        response = await client.get(
            "/auth/callback",
            params={"error": "access_denied", "error_description": "User denied consent"},
            headers={"Accept-Language": language},
        )
    assert response.status_code == 403
    said = text(language, "signin.not_completed.message", reason="User denied consent")
    assert said in response.text and page_says(response, language, "signin.again")


@LANGUAGES
async def test_an_unreachable_issuer_is_a_page(tmp_path: Path, language: Language) -> None:
    async with browsing(unreachable_issuer_settings(tmp_path / "nufi.db")) as (_, client):
        response = await client.get(
            "/auth/login", params={"next": "/monitoring"}, headers={"Accept-Language": language}
        )
    assert response.status_code == 503
    assert page_says(response, language, "signin.unreachable.title", "signin.unreachable.message")
    assert "/auth/login?next=%2Fmonitoring" in response.text


async def test_unconfigured_sign_in_names_the_missing_settings(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    settings = settings_of(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}", oidc_issuer=web_idp.issuer
    )
    async with browsing(settings) as (_, client):
        response = await client.get("/auth/login")
        assert (await client.get("/test/whoami")).json() == {"signed_in": False}
    assert response.status_code == 503
    assert "NUFI_OIDC_CLIENT_ID" in response.text and "NUFI_DASHBOARD_SESSION_SECRET" in response.text
    assert "NUFI_OIDC_ISSUER" not in response.text
