"""The token cache: private files, and renewal with the refresh token once the access token expired."""

from __future__ import annotations

import json
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from nufi.cli.tokens import StoredLogin, TokenCache
from unit.cli.conftest import SERVER, FakeServer

pytestmark = pytest.mark.unit

TOKEN_URL = "http://idp.test/realms/super-llm/protocol/openid-connect/token"


def _login(expires_in: float, refresh: str | None = "refresh-1") -> StoredLogin:
    return StoredLogin(
        server=SERVER,
        issuer="http://idp.test/realms/super-llm",
        client_id="nufi-cli",
        token_endpoint=TOKEN_URL,
        access_token="access-1",
        expires_at=time.time() + expires_in,
        refresh_token=refresh,
        username="admin",
    )


def _me(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"username": "admin", "roles": ["nufi-admin"], "is_admin": True})


def test_tokens_are_saved_readable_by_the_user_alone(tmp_path: Path) -> None:
    cache = TokenCache(tmp_path / "nufi")
    path = cache.save(_login(300))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "nufi").stat().st_mode) == 0o700
    assert cache.load(SERVER + "/") == _login(300).__class__(**json.loads(path.read_text()))
    assert cache.delete(SERVER) and cache.load(SERVER) is None


def test_each_server_has_its_own_tokens(tmp_path: Path) -> None:
    cache = TokenCache(tmp_path)
    cache.save(_login(300))
    assert cache.path_for(SERVER) != cache.path_for("http://other.test")
    assert cache.load("http://other.test") is None


def test_an_expired_access_token_is_renewed_and_the_new_tokens_saved(
    server: FakeServer, run: Callable[..., Any], tmp_path: Path
) -> None:
    cache = TokenCache()
    cache.save(_login(-10))
    grants: list[dict[str, list[str]]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if str(request.url) == TOKEN_URL:
            grants.append(parse_qs(request.content.decode()))
            return httpx.Response(
                200, json={"access_token": "access-2", "refresh_token": "refresh-2", "expires_in": 300}
            )
        assert request.headers["Authorization"] == "Bearer access-2"
        return _me(request)

    server.handler = answer
    result = run("whoami")
    assert result.exit_code == 0, result.output
    assert grants == [
        {"grant_type": ["refresh_token"], "client_id": ["nufi-cli"], "refresh_token": ["refresh-1"]}
    ]
    saved = cache.load(SERVER)
    assert saved is not None and (saved.access_token, saved.refresh_token) == ("access-2", "refresh-2")
    assert saved.expires_at > time.time() + 200
    assert stat.S_IMODE(cache.path_for(SERVER).stat().st_mode) == 0o600


def test_a_fresh_access_token_is_sent_without_renewal(server: FakeServer, run: Callable[..., Any]) -> None:
    TokenCache().save(_login(300))
    server.handler = _me
    assert run("whoami").exit_code == 0
    assert [str(r.url) for r in server.requests] == [f"{SERVER}/api/v1/me"]
    assert server.requests[0].headers["Authorization"] == "Bearer access-1"


def test_a_refused_renewal_exits_3_and_asks_for_login(server: FakeServer, run: Callable[..., Any]) -> None:
    TokenCache().save(_login(-10))
    server.handler = lambda request: httpx.Response(
        400, json={"error": "invalid_grant", "error_description": "Token is not active"}
    )
    result = run("whoami")
    assert result.exit_code == 3
    assert "Token is not active" in result.stderr and "nufi login" in result.stderr


def test_a_token_refused_early_is_renewed_once_and_the_call_repeated(
    server: FakeServer, run: Callable[..., Any]
) -> None:
    TokenCache().save(_login(300))

    def answer(request: httpx.Request) -> httpx.Response:
        if str(request.url) == TOKEN_URL:
            return httpx.Response(200, json={"access_token": "access-2", "expires_in": 300})
        if request.headers["Authorization"] == "Bearer access-1":
            return httpx.Response(401, json={"type": "unauthorized", "title": "Unauthorized", "status": 401})
        return _me(request)

    server.handler = answer
    assert run("whoami").exit_code == 0
    saved = TokenCache().load(SERVER)
    # A refresh answer without a refresh token keeps the one there was.
    assert saved is not None and (saved.access_token, saved.refresh_token) == ("access-2", "refresh-1")


def test_nufi_token_wins_over_the_cache_and_is_never_renewed(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    TokenCache().save(_login(-10))
    monkeypatch.setenv("NUFI_TOKEN", "ci-token")
    server.handler = _me
    assert run("whoami").exit_code == 0
    assert [r.headers["Authorization"] for r in server.requests] == ["Bearer ci-token"]
