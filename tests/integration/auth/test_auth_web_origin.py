"""Sign-out only from NuFi's own pages, and the redirect URI and the cookies' Secure flag taken from
NUFI_DASHBOARD_PUBLIC_URL rather than from whatever Host a request names: NuFi in memory, the real
dev identity provider, the browser played by httpx."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from nufi.ui import signin
from nufi.ui.i18n import text
from nufi_sandbox.idp.launcher import IdentityProviderProcess

from .test_auth_web_sessions import BASE, browsing, dashboard_settings, sign_in, web_idp

__all__ = ["web_idp"]

FOREIGN = {
    "another site": {"Origin": "https://evil.example"},
    "another port of the same host": {"Origin": "http://127.0.0.1:9999"},
    "a sibling host name": {"Origin": "http://lab-1.localhost:8080"},
    "a sandboxed frame": {"Origin": "null"},
    "no Origin, a cross-site fetch": {"Sec-Fetch-Site": "same-site"},
    "no Origin, a foreign referrer": {"Referer": "https://evil.example/page"},
}
OWN = {
    "its own origin": {"Origin": BASE},
    "no Origin, a same-origin fetch": {"Sec-Fetch-Site": "same-origin"},
    "no Origin, its own referrer": {"Referer": f"{BASE}/admin/projects"},
}


@pytest.mark.parametrize("headers", FOREIGN.values(), ids=FOREIGN.keys())
async def test_a_sign_out_from_another_origin_is_refused_and_the_session_stays(
    web_idp: IdentityProviderProcess, tmp_path: Path, headers: dict[str, str]
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        await sign_in(client, "admin", "admin-pw")
        out = await client.post("/auth/logout", headers={**headers, "Accept-Language": "ko-KR,ko;q=0.9"})
        assert out.status_code == 403, out.text
        assert "<html lang='ko'>" in out.text and text("ko", "signout.refused.message") in out.text
        assert "set-cookie" not in out.headers
        assert (await client.get("/test/whoami")).json()["signed_in"] is True


@pytest.mark.parametrize("headers", OWN.values(), ids=OWN.keys())
async def test_a_sign_out_from_a_nufi_page_ends_the_session(
    web_idp: IdentityProviderProcess, tmp_path: Path, headers: dict[str, str]
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        done = await sign_in(client, "admin", "admin-pw")
        out = await client.post("/auth/logout", headers=headers)
        assert out.status_code == 303, out.text
        client.cookies.set(signin.SESSION_COOKIE, done.session_id)
        assert (await client.get("/test/whoami")).json() == {"signed_in": False}


async def test_with_a_public_url_only_its_origin_may_sign_out(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    database = tmp_path / "nufi.db"
    async with browsing(dashboard_settings(web_idp, database)) as (_, client):
        done = await sign_in(client, "admin", "admin-pw")
    configured = dashboard_settings(web_idp, database, dashboard_public_url="https://nufi.example.com")
    async with browsing(configured) as (_, client):
        client.cookies.set(signin.SESSION_COOKIE, done.session_id)
        # The request's own host is not NuFi's origin once an address is configured.
        refused = await client.post("/auth/logout", headers={"Origin": BASE})
        assert refused.status_code == 403
        assert (await client.get("/test/whoami")).json()["signed_in"] is True
        out = await client.post("/auth/logout", headers={"Origin": "https://nufi.example.com"})
        assert out.status_code == 303
        assert (await client.get("/test/whoami")).json() == {"signed_in": False}


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8080", "nufi.example.com", "127.0.0.1:8080", "localhost"]
)
async def test_a_host_header_decides_neither_the_redirect_uri_nor_secure(
    web_idp: IdentityProviderProcess, tmp_path: Path, host: str
) -> None:
    settings = dashboard_settings(
        web_idp, tmp_path / "nufi.db", dashboard_public_url="https://nufi.example.com"
    )
    async with browsing(settings) as (_, client):
        login = await client.get("/auth/login", headers={"Host": host})
    assert login.status_code == 302
    assert "; secure" in login.headers["set-cookie"].lower()
    redirect = parse_qs(urlsplit(login.headers["location"]).query)["redirect_uri"]
    assert redirect == ["https://nufi.example.com/auth/callback"]


async def test_an_http_public_url_sets_no_secure_flag_whatever_the_host(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    settings = dashboard_settings(web_idp, tmp_path / "nufi.db", dashboard_public_url="http://127.0.0.1:8080")
    async with browsing(settings, base_url="https://evil.example") as (_, client):
        login = await client.get("/auth/login")
    assert login.status_code == 302
    assert "; secure" not in login.headers["set-cookie"].lower()
    redirect = parse_qs(urlsplit(login.headers["location"]).query)["redirect_uri"]
    assert redirect == ["http://127.0.0.1:8080/auth/callback"]


async def test_without_a_public_url_only_loopback_hosts_may_sign_in(
    web_idp: IdentityProviderProcess, tmp_path: Path
) -> None:
    async with browsing(dashboard_settings(web_idp, tmp_path / "nufi.db")) as (_, client):
        # DNS rebinding: a name the attacker points at 127.0.0.1 must not become the redirect URI.
        rebound = await client.get(
            "/auth/login", headers={"Host": "evil.example:8080", "Accept-Language": "en"}
        )
        assert rebound.status_code == 400
        assert "<html lang='en'>" in rebound.text
        assert text("en", "signin.unknown_address.title") in rebound.text
        assert "NUFI_DASHBOARD_PUBLIC_URL" in rebound.text
        assert "set-cookie" not in rebound.headers
        for host in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080"):
            login = await client.get("/auth/login", headers={"Host": host})
            assert login.status_code == 302
            assert "; secure" not in login.headers["set-cookie"].lower()
            redirect = parse_qs(urlsplit(login.headers["location"]).query)["redirect_uri"]
            assert redirect == [f"http://{host}/auth/callback"]
