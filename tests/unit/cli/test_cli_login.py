"""`nufi login`: PKCE, the loopback redirect, state checking, and the tokens it keeps."""

from __future__ import annotations

import ipaddress
import json
import string
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import SecretStr

from nufi.api import create_app
from nufi.cli import pkce
from nufi.cli.client import plain_http_off_loopback
from nufi.cli.tokens import StoredLogin, TokenCache
from nufi.config import Settings
from nufi_sandbox.idp.realm import DEFAULT_USERS_FILE, RealmSpec, load_realm
from support.asgi import serving
from support.nufi_app import MEMORY_DATABASE
from unit.cli.conftest import SERVER, FakeServer

pytestmark = pytest.mark.unit

ISSUER = "http://idp.test/realms/super-llm"
AUTHORIZE = f"{ISSUER}/protocol/openid-connect/auth"
TOKEN = f"{ISSUER}/protocol/openid-connect/token"
REVOKE = f"{ISSUER}/protocol/openid-connect/revoke"
REPO = Path(__file__).resolve().parents[3]


def test_the_challenge_is_rfc_7636s_s256_of_the_verifier() -> None:
    # RFC 7636 appendix B.
    assert pkce.challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == (
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )


def test_verifiers_are_long_unreserved_and_fresh() -> None:
    verifiers = {pkce.new_verifier() for _ in range(20)}
    assert len(verifiers) == 20
    allowed = set(string.ascii_letters + string.digits + "-._~")
    assert all(43 <= len(v) <= 128 and set(v) <= allowed for v in verifiers)


class FakeIdp:
    """The server's /api/v1/auth/cli, discovery, a token endpoint checking PKCE, and /api/v1/me."""

    def __init__(self) -> None:
        self.challenge = ""
        self.token_form: dict[str, list[str]] = {}
        self.revoke_forms: list[dict[str, list[str]]] = []
        self.revoke_status = 200

    def __call__(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if url == f"{SERVER}/api/v1/auth/cli":
            return httpx.Response(200, json={"issuer": ISSUER, "client_id": "nufi-cli", "scope": "openid"})
        if url == f"{ISSUER}/.well-known/openid-configuration":
            return httpx.Response(
                200,
                json={
                    "authorization_endpoint": AUTHORIZE,
                    "token_endpoint": TOKEN,
                    "revocation_endpoint": REVOKE,
                },
            )
        if url == REVOKE:
            self.revoke_forms.append(parse_qs(request.content.decode()))
            return httpx.Response(self.revoke_status, json={"error": "server_error"})
        if url == TOKEN:
            self.token_form = parse_qs(request.content.decode())
            if pkce.challenge_of(self.token_form["code_verifier"][0]) != self.challenge:
                return httpx.Response(400, json={"error": "invalid_grant"})
            return httpx.Response(200, json={"access_token": "a", "refresh_token": "r", "expires_in": 300})
        if url == f"{SERVER}/api/v1/me":
            return httpx.Response(200, json={"username": "admin", "roles": [], "is_admin": True})
        return httpx.Response(404)


def _browser(idp: FakeIdp, answer: Callable[[dict[str, str]], dict[str, str]]) -> Callable[[str], bool]:
    """A browser that signs in at once: the IdP redirects to the loopback address with `answer`."""

    def open_(url: str) -> bool:
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        assert url.startswith(AUTHORIZE) and query["code_challenge_method"] == "S256"
        assert query["redirect_uri"].startswith("http://127.0.0.1:")
        idp.challenge = query["code_challenge"]
        redirect = query["redirect_uri"]
        thread = threading.Thread(target=httpx.get, args=(redirect,), kwargs={"params": answer(query)})
        thread.start()
        return True

    return open_


def _login(
    server: FakeServer,
    run: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    answer: Callable[[dict[str, str]], dict[str, str]],
) -> tuple[Any, FakeIdp]:
    idp = FakeIdp()
    server.handler = idp
    monkeypatch.setattr(webbrowser, "open", _browser(idp, answer))
    return run("login", "--timeout", "10"), idp


def test_login_signs_in_with_pkce_and_keeps_the_tokens(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    result, idp = _login(server, run, monkeypatch, lambda q: {"code": "c-1", "state": q["state"]})
    assert result.exit_code == 0, result.output
    assert f"Signed in to {SERVER} as admin" in result.stdout
    assert AUTHORIZE in result.stderr  # the address is printed for a machine without a browser
    assert idp.token_form["grant_type"] == ["authorization_code"] and idp.token_form["code"] == ["c-1"]
    stored = TokenCache().load(SERVER)
    assert stored is not None and (stored.access_token, stored.refresh_token, stored.username) == (
        "a",
        "r",
        "admin",
    )
    assert TokenCache().current_server() == SERVER


def test_a_forged_answer_is_turned_away_and_the_real_one_still_signs_in(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    idp = FakeIdp()
    server.handler = idp
    forged: list[httpx.Response] = []

    def open_(url: str) -> bool:
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        idp.challenge = query["code_challenge"]

        def answers() -> None:
            # Another local process finds the port first, with a state of its own and with none.
            for params in ({"code": "evil", "state": "forged"}, {"code": "evil"}):
                forged.append(httpx.get(query["redirect_uri"], params=params))
            httpx.get(query["redirect_uri"], params={"code": "c-1", "state": query["state"]})

        threading.Thread(target=answers).start()
        return True

    monkeypatch.setattr(webbrowser, "open", open_)
    result = run("login", "--timeout", "10")
    assert result.exit_code == 0, result.output
    assert [answer.status_code for answer in forged] == [400, 400]
    assert all("does not belong to the sign-in under way" in answer.text for answer in forged)
    assert idp.token_form["code"] == ["c-1"]
    stored = TokenCache().load(SERVER)
    assert stored is not None and stored.access_token == "a"


def test_without_a_browser_it_says_where_to_go_and_opens_nothing(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    server.handler = FakeIdp()
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    # No one signs in: the short wait ends the command once it has said everything it says.
    result = run("login", "--no-browser", "--timeout", "0.1")
    assert result.exit_code == 3 and opened == []
    assert "Opening your browser" not in result.stderr and "browser does not open" not in result.stderr
    assert f"To sign in at {ISSUER}, open this address in a browser:\n{AUTHORIZE}?" in result.stderr


def test_an_error_from_the_idp_is_shown(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    result, _ = _login(
        server,
        run,
        monkeypatch,
        lambda q: {"error": "access_denied", "error_description": "no", "state": q["state"]},
    )
    assert result.exit_code == 3 and "refused the sign-in: no" in result.stderr


def test_a_server_without_sign_in_says_so(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = lambda request: httpx.Response(
        200, json={"issuer": None, "client_id": "nufi-cli", "scope": "openid"}
    )
    result = run("login", "--no-browser")
    assert result.exit_code == 3 and "NUFI_OIDC_ISSUER" in result.stderr


@pytest.mark.parametrize("realm", [load_realm(DEFAULT_USERS_FILE), RealmSpec().with_cli_client()])
def test_the_dev_idp_lets_the_cli_redirect_to_loopback_on_any_port(realm: RealmSpec) -> None:
    cli = realm.client("nufi-cli")
    assert cli is not None and cli.public
    assert cli.accepts_redirect("http://127.0.0.1:49152/callback")
    assert cli.accepts_redirect("http://127.0.0.1:8000/callback")
    assert not cli.accepts_redirect("http://evil.example/callback")


@pytest.mark.usefixtures("clean_env")
async def test_the_server_names_its_issuer_and_the_cli_client_to_anyone() -> None:
    settings = Settings(
        database_url=SecretStr(MEMORY_DATABASE), oidc_issuer=ISSUER, oidc_cli_client_id="ops-cli"
    )
    async with serving(create_app(settings)) as http:
        answer = await http.get("/api/v1/auth/cli")
    assert answer.status_code == 200
    assert answer.json() == {"issuer": ISSUER, "client_id": "ops-cli", "scope": "openid"}


def test_the_keycloak_realm_lets_the_cli_sign_in_with_pkce_to_loopback() -> None:
    realm = json.loads((REPO / "deploy" / "keycloak" / "super-llm-realm.json").read_text())
    (cli,) = [c for c in realm["clients"] if c["clientId"] == "nufi-cli"]
    assert cli["publicClient"] is True and cli["standardFlowEnabled"] is True
    assert cli["attributes"]["pkce.code.challenge.method"] == "S256"
    assert cli["redirectUris"] == ["http://127.0.0.1:*"]


def _signed_in(server: FakeServer, address: str = SERVER) -> FakeIdp:
    idp = FakeIdp()
    server.handler = idp
    login = StoredLogin(address, ISSUER, "nufi-cli", TOKEN, "a", 4e9, refresh_token="r-1", username="admin")
    TokenCache().save(login)
    return idp


def test_logout_revokes_the_refresh_token_at_the_issuer_then_forgets_it(
    server: FakeServer, run: Callable[..., Any]
) -> None:
    idp = _signed_in(server)
    result = run("logout")
    assert result.exit_code == 0, result.output
    assert idp.revoke_forms == [
        {"token": ["r-1"], "token_type_hint": ["refresh_token"], "client_id": ["nufi-cli"]}
    ]
    assert TokenCache().load(SERVER) is None


def test_logout_says_when_the_issuer_did_not_revoke_and_forgets_the_tokens_anyway(
    server: FakeServer, run: Callable[..., Any]
) -> None:
    idp = _signed_in(server)
    idp.revoke_status = 503
    result = run("logout")
    assert result.exit_code == 3
    assert f"Signed out of {SERVER}" in result.stdout
    assert f"the issuer {ISSUER} did not revoke the sign-in (server_error)" in result.stderr
    assert TokenCache().load(SERVER) is None


@pytest.mark.parametrize("command", [("login", "--no-browser"), ("whoami",), ("devices", "list")])
def test_plain_http_to_another_machine_is_refused_naming_the_flag(
    server: FakeServer, run: Callable[..., Any], command: tuple[str, ...]
) -> None:
    result = run(*command, "--server", "http://nufi.example.com")
    assert result.exit_code == 2
    assert "http://nufi.example.com is plain http to another machine" in result.stderr
    assert "--allow-insecure-http" in result.stderr and "NUFI_ALLOW_INSECURE_HTTP=1" in result.stderr
    assert server.requests == []


def test_plain_http_to_another_machine_is_taken_when_asked_for(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    server.handler = FakeIdp()
    run("login", "--no-browser", "--server", "http://nufi.example.com", "--allow-insecure-http")
    assert str(server.requests[0].url) == "http://nufi.example.com/api/v1/auth/cli"
    monkeypatch.setenv("NUFI_ALLOW_INSECURE_HTTP", "1")
    server.requests.clear()
    run("whoami", "--server", "http://nufi.example.com")
    assert str(server.requests[0].url) == "http://nufi.example.com/api/v1/me"


def test_a_kept_login_stands_for_the_consent_given_at_sign_in(
    server: FakeServer, run: Callable[..., Any]
) -> None:
    _signed_in(server, "http://nufi.example.com")
    run("whoami", "--server", "http://nufi.example.com")
    assert str(server.requests[0].url) == "http://nufi.example.com/api/v1/me"


@given(st.ip_addresses(v=4))
def test_plain_http_is_taken_to_this_machine_only(address: ipaddress.IPv4Address) -> None:
    assert plain_http_off_loopback(f"http://{address}:8080") is not address.is_loopback
    assert not plain_http_off_loopback(f"https://{address}:8080")


@pytest.mark.parametrize(
    ("server", "off_loopback"),
    [
        ("http://localhost:8080", False),
        ("http://LOCALHOST", False),
        ("http://[::1]:8080", False),
        ("http://127.0.0.1", False),
        ("http://127.1.2.3:8080", False),
        ("http://[::2]:8080", True),
        ("http://localhost.example.com", True),
        ("http://nufi.localhost", True),
        ("http://10.0.0.1", True),
        ("https://nufi.example.com", False),
    ],
)
def test_which_servers_are_plain_http_off_loopback(server: str, off_loopback: bool) -> None:
    assert plain_http_off_loopback(server) is off_loopback
