"""The dev identity provider over HTTP: Keycloak's endpoints, errors and the browser login flow."""

from __future__ import annotations

import base64
import hashlib
import secrets
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt
import pytest

from nufi_sandbox.idp.launcher import IdentityProviderProcess, TokenRequestFailed
from nufi_sandbox.processes import ProcessNotReadyError
from support.nufi_app import bearer

from .idp_support import CALLBACK, DASHBOARD_SECRET, nufi_settings, serving


async def test_discovery_names_every_endpoint_under_the_issuer(idp: IdentityProviderProcess) -> None:
    async with httpx.AsyncClient() as http:
        document = (await http.get(idp.discovery_url)).json()
    assert document["issuer"] == idp.issuer == f"http://127.0.0.1:{idp.port}/realms/super-llm"
    oidc = f"{idp.issuer}/protocol/openid-connect"
    assert document["authorization_endpoint"] == f"{oidc}/auth"
    assert document["token_endpoint"] == idp.token_url == f"{oidc}/token"
    assert document["jwks_uri"] == f"{oidc}/certs"
    assert document["userinfo_endpoint"] == f"{oidc}/userinfo"
    assert document["end_session_endpoint"] == f"{oidc}/logout"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["id_token_signing_alg_values_supported"] == ["RS256"]
    assert {"password", "refresh_token", "authorization_code"} <= set(document["grant_types_supported"])
    assert document["response_types_supported"] == ["code"]


async def test_the_jwks_has_a_signing_key_and_an_encryption_key(idp: IdentityProviderProcess) -> None:
    async with httpx.AsyncClient() as http:
        keys = (await http.get(idp.certs_url)).json()["keys"]
    assert sorted((k["use"], k["alg"], k["kty"]) for k in keys) == [
        ("enc", "RSA-OAEP", "RSA"),
        ("sig", "RS256", "RSA"),
    ]
    signing_kid = next(k["kid"] for k in keys if k["use"] == "sig")
    assert jwt.get_unverified_header(idp.password_token("admin", "admin-pw"))["kid"] == signing_kid


async def test_a_wrong_password_is_keycloaks_401_invalid_grant(idp: IdentityProviderProcess) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.post(
            idp.token_url,
            data={"grant_type": "password", "client_id": "nufi-cli", "username": "admin", "password": "nope"},
        )
    assert response.status_code == 401
    assert response.json() == {"error": "invalid_grant", "error_description": "Invalid user credentials"}
    assert response.headers["cache-control"] == "no-store"
    with pytest.raises(TokenRequestFailed, match="invalid_grant"):
        idp.password_token("user", "admin-pw")


async def test_an_unknown_realm_does_not_exist(idp: IdentityProviderProcess) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{idp.base_url}/realms/nope/.well-known/openid-configuration")
    assert response.status_code == 404
    assert response.json() == {"error": "Realm does not exist"}


async def test_userinfo_answers_for_a_valid_token_only(idp: IdentityProviderProcess) -> None:
    url = f"{idp.issuer}/protocol/openid-connect/userinfo"
    async with httpx.AsyncClient() as http:
        info = await http.get(url, headers=bearer(idp.password_token("admin", "admin-pw")))
        refused = await http.get(url, headers=bearer("junk"))
    assert info.status_code == 200
    assert info.json()["preferred_username"] == "admin"
    assert info.json()["email"] == "admin@example.com"
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]


async def test_refresh_then_logout_ends_the_session(idp: IdentityProviderProcess) -> None:
    first = idp.token_response(
        {"grant_type": "password", "client_id": "nufi-cli", "username": "user", "password": "user-pw"}
    )
    renewed = idp.token_response(
        {"grant_type": "refresh_token", "client_id": "nufi-cli", "refresh_token": first["refresh_token"]}
    )
    assert renewed["session_state"] == first["session_state"]
    async with httpx.AsyncClient() as http:
        logout = await http.post(
            f"{idp.issuer}/protocol/openid-connect/logout",
            data={"client_id": "nufi-cli", "refresh_token": first["refresh_token"]},
        )
        userinfo = await http.get(
            f"{idp.issuer}/protocol/openid-connect/userinfo", headers=bearer(renewed["access_token"])
        )
    assert logout.status_code == 204
    assert userinfo.status_code == 401
    with pytest.raises(TokenRequestFailed, match="Session not active"):
        idp.token_response(
            {"grant_type": "refresh_token", "client_id": "nufi-cli", "refresh_token": first["refresh_token"]}
        )


class _FormReader(HTMLParser):
    """Reads a login page the way a browser would: the form's action and its fields."""

    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.fields: dict[str, str] = {}
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "form":
            self.action = attributes.get("action", "")
        elif tag == "input" and attributes.get("type") == "hidden":
            self.fields[attributes["name"]] = attributes.get("value", "")


def _read_form(html: str) -> _FormReader:
    reader = _FormReader()
    reader.feed(html)
    return reader


def _pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


async def _sign_in(
    browser: httpx.AsyncClient, idp: IdentityProviderProcess, challenge: str, *, state: str, nonce: str
) -> str:
    """Open the login page, submit it, and return the redirect the browser would follow."""
    page = await browser.get(
        idp.auth_url,
        params={
            "client_id": "nufi-dashboard",
            "redirect_uri": CALLBACK,
            "response_type": "code",
            "scope": "openid",
            "state": state,
            "nonce": nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        },
    )
    assert page.status_code == 200
    form = _read_form(page.text)
    assert {"username", "password", "kc-login"} <= form.ids
    wrong = await browser.post(form.action, data={**form.fields, "username": "admin", "password": "wrong"})
    assert wrong.status_code == 200
    assert "Invalid username or password." in wrong.text
    signed_in = await browser.post(
        form.action, data={**form.fields, "username": "admin", "password": "admin-pw"}
    )
    assert signed_in.status_code == 302
    return signed_in.headers["location"]


async def test_authorization_code_with_pkce_end_to_end(idp: IdentityProviderProcess) -> None:
    verifier, challenge = _pkce_pair()
    state, nonce = secrets.token_urlsafe(8), secrets.token_urlsafe(8)
    async with httpx.AsyncClient(follow_redirects=False) as browser:
        location = await _sign_in(browser, idp, challenge, state=state, nonce=nonce)
        assert location.startswith(CALLBACK + "?")
        query = parse_qs(urlsplit(location).query)
        assert query["state"] == [state]
        assert query["iss"] == [idp.issuer]
        code = query["code"][0]
        exchange = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": CALLBACK,
            "code_verifier": verifier,
        }
        dashboard = ("nufi-dashboard", DASHBOARD_SECRET)
        tokens = await browser.post(idp.token_url, data=exchange, auth=dashboard)
        replay = await browser.post(idp.token_url, data=exchange, auth=dashboard)
    assert tokens.status_code == 200, tokens.text
    body = tokens.json()
    id_claims = jwt.decode(body["id_token"], options={"verify_signature": False})
    assert (id_claims["nonce"], id_claims["aud"], id_claims["typ"]) == (nonce, "nufi-dashboard", "ID")
    access = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert (access["azp"], access["aud"], access["preferred_username"]) == ("nufi-dashboard", "nufi", "admin")
    assert replay.status_code == 400
    assert replay.json() == {"error": "invalid_grant", "error_description": "Code not valid"}
    # The token the browser flow produced opens NuFi, through the aud path of the audience check.
    async with serving(nufi_settings(oidc_issuer=idp.issuer, oidc_audience="nufi")) as nufi:
        me = await nufi.get("/api/v1/me", headers=bearer(body["access_token"]))
    assert me.status_code == 200
    assert me.json()["is_admin"] is True


async def test_a_wrong_code_verifier_or_a_missing_secret_gets_no_tokens(idp: IdentityProviderProcess) -> None:
    verifier, challenge = _pkce_pair()
    async with httpx.AsyncClient(follow_redirects=False) as browser:
        code = parse_qs(urlsplit(await _sign_in(browser, idp, challenge, state="s", nonce="n")).query)[
            "code"
        ][0]
        exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK}
        no_secret = await browser.post(
            idp.token_url, data={**exchange, "client_id": "nufi-dashboard", "code_verifier": verifier}
        )
        wrong_verifier = await browser.post(
            idp.token_url,
            data={**exchange, "code_verifier": _pkce_pair()[0]},
            auth=("nufi-dashboard", DASHBOARD_SECRET),
        )
    assert no_secret.status_code == 401
    assert no_secret.json()["error"] == "invalid_client"
    assert wrong_verifier.status_code == 400
    assert wrong_verifier.json() == {
        "error": "invalid_grant",
        "error_description": "PKCE verification failed: Invalid code verifier",
    }


async def test_the_login_page_never_redirects_to_an_unregistered_address(
    idp: IdentityProviderProcess,
) -> None:
    params = {"client_id": "nufi-dashboard", "response_type": "code", "state": "s"}
    async with httpx.AsyncClient(follow_redirects=False) as browser:
        evil = await browser.get(idp.auth_url, params={**params, "redirect_uri": "http://evil.example/cb"})
        prefixed = await browser.get(
            idp.auth_url, params={**params, "redirect_uri": CALLBACK + "/../../evil"}
        )
        plain = await browser.get(
            idp.auth_url,
            params={
                **params,
                "redirect_uri": CALLBACK,
                "code_challenge": "abc",
                "code_challenge_method": "plain",
            },
        )
        unknown_client = await browser.get(
            idp.auth_url, params={**params, "client_id": "nope", "redirect_uri": CALLBACK}
        )
    for refused in (evil, prefixed):
        assert refused.status_code == 400
        assert "location" not in refused.headers
        assert "Invalid parameter: redirect_uri" in refused.text
    assert unknown_client.status_code == 400
    assert "Client not found." in unknown_client.text
    assert plain.status_code == 302
    query = parse_qs(urlsplit(plain.headers["location"]).query)
    assert query["error"] == ["invalid_request"]
    assert query["state"] == ["s"]


def test_a_broken_users_file_stops_the_provider_with_the_reason(tmp_path: Path) -> None:
    users = tmp_path / "users.yaml"
    users.write_text("clients:\n  - id: nufi-dashboard\n    redirect_uris: []\n")
    provider = IdentityProviderProcess(tmp_path / "idp", users_file=users)
    try:
        with pytest.raises(ProcessNotReadyError) as failed:
            provider.start(timeout=20)
    finally:
        provider.stop()
    assert failed.value.returncode == 1
    assert "client 'nufi-dashboard' needs a secret" in failed.value.log_tail
    assert "Traceback" not in failed.value.log_tail


async def test_a_korean_browser_signs_in_on_a_korean_page(idp: IdentityProviderProcess) -> None:
    params = {"client_id": "nufi-dashboard", "redirect_uri": CALLBACK, "response_type": "code", "state": "s"}
    korean = {"Accept-Language": "ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7"}
    async with httpx.AsyncClient(follow_redirects=False, headers=korean) as browser:
        page = await browser.get(idp.auth_url, params=params)
        form = _read_form(page.text)
        wrong = await browser.post(form.action, data={**form.fields, "username": "admin", "password": "x"})
        unknown_client = await browser.get(idp.auth_url, params={**params, "client_id": "nope"})
        english = await browser.get(idp.auth_url, params=params, headers={"Accept-Language": "en-US,en"})
    assert "<html lang='ko'>" in page.text and "super-llm에 로그인" in page.text
    assert "사용자 이름 또는 이메일" in page.text and "value='로그인'" in page.text
    assert "Sign in" not in page.text and "Username" not in page.text
    assert "사용자 이름 또는 비밀번호가 올바르지 않습니다." in wrong.text
    assert unknown_client.status_code == 400 and "클라이언트를 찾을 수 없습니다." in unknown_client.text
    assert "Sign in to super-llm" in english.text and "로그인" not in english.text
