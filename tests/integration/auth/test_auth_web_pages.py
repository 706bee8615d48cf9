"""The sign-in, callback and sign-out pages in the reader's language: every sentence from the
catalog, Korean or English as the language cookie or else Accept-Language says, with `<html lang>`
to match. NuFi in memory, the real dev identity provider, the browser played by httpx."""

from __future__ import annotations

import string
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi import FastAPI

from nufi.ui import signin
from nufi.ui.i18n import CATALOG, Language
from nufi.ui.language_choice import LANGUAGE_COOKIE
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.languages import HANGUL

from .test_auth_web_sessions import (
    browsing,
    dashboard_settings,
    settings_of,
    sign_in,
    unreachable_issuer_settings,
    web_idp,
)

__all__ = ["web_idp"]

PAGE_KEYS = ("signin.", "signout.")


def pieces(template: str) -> list[str]:
    """The words of a catalog text around its fields, as a page shows them whatever the fields hold."""
    return [p.strip() for p, *_ in string.Formatter().parse(template) if len(p.strip()) >= 4]


def assert_in_language(page: httpx.Response, language: Language, keys: tuple[str, ...]) -> None:
    assert page.headers["content-type"].startswith("text/html")
    assert f"<html lang='{language}'>" in page.text
    shown = unescape(page.text)
    for key in keys:
        for piece in pieces(CATALOG[language][key]):
            assert piece in shown, (key, piece, shown)
    if language == "en":
        assert not HANGUL.search(shown), shown
        return
    english = {k: v for k, v in CATALOG["en"].items() if k.startswith(PAGE_KEYS) and v != CATALOG["ko"][k]}
    for key, template in english.items():
        for piece in pieces(template):
            assert piece not in shown, (key, piece, shown)


async def _state_of(client: httpx.AsyncClient) -> str:
    login = await client.get("/auth/login")
    assert login.status_code == 302, login.text
    return parse_qs(urlsplit(login.headers["location"]).query)["state"][0]


Visit = Callable[[IdentityProviderProcess, Path, dict[str, str]], Awaitable[httpx.Response]]


async def unreachable(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(unreachable_issuer_settings(tmp / "nufi.db")) as (_, client):
        return await client.get("/auth/login", params={"next": "/monitoring"}, headers=headers)


async def unconfigured(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    settings = settings_of(database_url=f"sqlite+aiosqlite:///{tmp / 'nufi.db'}", oidc_issuer=idp.issuer)
    async with browsing(settings) as (_, client):
        return await client.get("/auth/login", headers=headers)


async def not_ready(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    bare = FastAPI()  # the router outside a running NuFi: no services to sign in with
    bare.include_router(signin.router)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=bare), base_url="http://127.0.0.1"
    ) as client:
        return await client.get("/auth/login", headers=headers)


async def unknown_address(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        return await client.get("/auth/login", headers={**headers, "Host": "evil.example:8080"})


async def denied(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        await client.get("/auth/login")
        params = {"error": "access_denied", "error_description": "User denied consent"}
        return await client.get("/auth/callback", params=params, headers=headers)


async def expired(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        return await client.get("/auth/callback", params={"state": "s", "code": "x"}, headers=headers)


async def other_state(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        await client.get("/auth/login")
        return await client.get("/auth/callback", params={"state": "forged", "code": "x"}, headers=headers)


async def no_code(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        state = await _state_of(client)
        return await client.get("/auth/callback", params={"state": state}, headers=headers)


async def other_issuer(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        params = {"state": await _state_of(client), "code": "x", "iss": "https://evil.example/realms/x"}
        return await client.get("/auth/callback", params=params, headers=headers)


async def refused(idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        params = {"state": await _state_of(client), "code": "a-code-the-issuer-never-gave"}
        return await client.get("/auth/callback", params=params, headers=headers)


async def sign_out_refused(
    idp: IdentityProviderProcess, tmp: Path, headers: dict[str, str]
) -> httpx.Response:
    async with browsing(dashboard_settings(idp, tmp / "nufi.db")) as (_, client):
        await sign_in(client, "admin", "admin-pw")
        return await client.post("/auth/logout", headers={**headers, "Origin": "https://evil.example"})


@dataclass(frozen=True)
class Page:
    visit: Visit
    status: int
    keys: tuple[str, ...]
    also: tuple[str, ...] = ()  # what the page names as it is, in either language
    retry: bool = True


AGAIN = ("signin.again",)
UNFINISHED = "signin.unfinished.title"
PAGES = {
    "issuer unreachable": Page(
        unreachable,
        503,
        ("signin.unreachable.title", "signin.unreachable.message", "signin.detail", *AGAIN),
        ("/auth/login?next=%2Fmonitoring",),
    ),
    "sign-in not configured": Page(
        unconfigured,
        503,
        ("signin.unconfigured.title", "signin.unconfigured.message"),
        ("NUFI_OIDC_CLIENT_ID", "NUFI_DASHBOARD_SESSION_SECRET"),
        retry=False,
    ),
    "not ready": Page(not_ready, 503, ("signin.not_ready.title", "signin.not_ready.message", *AGAIN)),
    "unknown address": Page(
        unknown_address,
        400,
        ("signin.unknown_address.title", "signin.unknown_address.message"),
        ("NUFI_DASHBOARD_PUBLIC_URL",),
        retry=False,
    ),
    "consent denied": Page(
        denied,
        403,
        ("signin.not_completed.title", "signin.not_completed.message", *AGAIN),
        ("User denied consent",),
    ),
    "login cookie gone": Page(expired, 400, (UNFINISHED, "signin.unfinished.expired", *AGAIN)),
    "state of another sign-in": Page(other_state, 400, (UNFINISHED, "signin.unfinished.state", *AGAIN)),
    "answer without a code": Page(no_code, 400, (UNFINISHED, "signin.unfinished.no_code", *AGAIN)),
    "answer from another issuer": Page(other_issuer, 400, (UNFINISHED, "signin.unfinished.issuer", *AGAIN)),
    "code refused by the issuer": Page(
        refused, 401, ("signin.refused.title", "signin.refused.message", "signin.detail", *AGAIN)
    ),
    "sign-out from another origin": Page(
        sign_out_refused, 403, ("signout.refused.title", "signout.refused.message"), retry=False
    ),
}
# (the page's language, the browser's Accept-Language, the language chosen in the dashboard)
BROWSERS: dict[str, tuple[Language, str | None, str | None]] = {
    "ko": ("ko", "ko", None),
    "en": ("en", "en", None),
    "ko-KR first": ("ko", "ko-KR,ko;q=0.9,en-US;q=0.8", None),
    "en-US first": ("en", "en-US,en;q=0.9,ko;q=0.8", None),
    "neither": ("ko", "de-DE,fr;q=0.9", None),
    "no language": ("ko", None, None),
    "chosen English over a Korean browser": ("en", "ko", "en"),
    "chosen Korean over an English browser": ("ko", "en", "ko"),
}


@pytest.mark.parametrize("page", PAGES.values(), ids=PAGES.keys())
@pytest.mark.parametrize("language", ["ko", "en"])
async def test_each_page_is_in_the_browsers_language(
    web_idp: IdentityProviderProcess, tmp_path: Path, page: Page, language: Language
) -> None:
    response = await page.visit(web_idp, tmp_path, {"Accept-Language": language})
    assert response.status_code == page.status, response.text
    keys = page.keys if page.retry else tuple(k for k in page.keys if k != "signin.again")
    assert_in_language(response, language, keys)
    for named in page.also:
        assert named in response.text
    assert ("id='sign-in-again'" in response.text) is page.retry


@pytest.mark.parametrize(("language", "accept_language", "chosen"), BROWSERS.values(), ids=BROWSERS.keys())
async def test_a_chosen_language_wins_then_the_browsers_then_korean(
    web_idp: IdentityProviderProcess,
    tmp_path: Path,
    language: Language,
    accept_language: str | None,
    chosen: str | None,
) -> None:
    headers = {"Accept-Language": accept_language} if accept_language else {}
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        if chosen:
            client.cookies.set(LANGUAGE_COOKIE, chosen)
        await client.get("/auth/login")
        response = await client.get(
            "/auth/callback", params={"state": "forged", "code": "x"}, headers=headers
        )
    assert response.status_code == 400
    assert_in_language(response, language, (UNFINISHED, "signin.unfinished.state", *AGAIN))


async def test_what_the_issuer_said_is_shown_escaped(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        await client.get("/auth/login")
        params = {"error": "access_denied", "error_description": "<script>alert(1)</script>"}
        response = await client.get("/auth/callback", params=params, headers={"Accept-Language": "ko"})
    assert response.status_code == 403
    assert "<script>" not in response.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text
    assert_in_language(response, "ko", ("signin.not_completed.title", "signin.not_completed.message"))
