"""The command line's sign-in against real sockets and the dev identity provider: the loopback
listener takes only the answer that carries its sign-in's state, and `nufi logout` revokes the
refresh token at the issuer, which refuses it from then on."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from nufi.cli import app
from nufi.cli.loopback import LoopbackReceiver
from nufi.cli.tokens import StoredLogin, TokenCache
from nufi_sandbox.idp.launcher import IdentityProviderProcess, TokenRequestFailed

STATE = "the-state-of-this-sign-in"


def test_a_forged_answer_does_not_end_the_sign_in_and_the_real_one_does() -> None:
    with LoopbackReceiver(STATE) as receiver:
        forged = [
            httpx.get(receiver.redirect_uri, params={"code": "evil", "state": "forged"}),
            httpx.get(receiver.redirect_uri, params={"code": "evil"}),
            httpx.get(receiver.redirect_uri, params={"error": "access_denied", "state": "forged"}),
        ]
        real = httpx.get(receiver.redirect_uri, params={"code": "c-1", "state": STATE})
        answer = receiver.wait(10)
    assert [page.status_code for page in forged] == [400, 400, 400]
    assert real.status_code == 200 and "Signed in to NuFi" in real.text
    assert answer == {"code": "c-1", "state": STATE}


def test_a_connection_held_open_does_not_keep_the_real_answer_out() -> None:
    with LoopbackReceiver(STATE) as receiver:
        port = int(receiver.redirect_uri.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port)) as idle:
            idle.sendall(b"GET /callback?code=evil")  # never finished
            real = httpx.get(receiver.redirect_uri, params={"code": "c-1", "state": STATE}, timeout=5)
            answer = receiver.wait(10)
    assert real.status_code == 200 and answer == {"code": "c-1", "state": STATE}


def _refresh(idp: IdentityProviderProcess, token: str) -> dict[str, object]:
    return idp.token_response(
        {"grant_type": "refresh_token", "client_id": "nufi-cli", "refresh_token": token}
    )


def test_logout_revokes_the_refresh_token_at_the_dev_identity_provider(
    idp: IdentityProviderProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    for name in ("NUFI_SERVER", "NUFI_TOKEN", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    grant = idp.token_response(
        {"grant_type": "password", "client_id": "nufi-cli", "username": "user", "password": "user"}
    )
    server = "http://127.0.0.1:9"  # logout talks to the issuer alone
    login = StoredLogin(server, idp.issuer, "nufi-cli", idp.token_url, "", 0.0)
    TokenCache(config).save(login.with_grant(grant, time.time()))
    refresh_token = str(grant["refresh_token"])
    assert "access_token" in _refresh(idp, refresh_token)  # good until the logout

    done = CliRunner().invoke(
        app, ["logout", "--server", server], env={"NUFI_CONFIG_DIR": str(config), "LANG": "en_US.UTF-8"}
    )
    assert done.exit_code == 0, done.output
    assert TokenCache(config).load(server) is None
    with pytest.raises(TokenRequestFailed) as refused:
        _refresh(idp, refresh_token)
    assert (refused.value.status, refused.value.error) == (400, "invalid_grant")


def test_the_discovery_document_names_the_revocation_endpoint(idp: IdentityProviderProcess) -> None:
    document = httpx.get(idp.discovery_url).json()
    assert document["revocation_endpoint"] == f"{idp.issuer}/protocol/openid-connect/revoke"


def test_only_the_client_a_refresh_token_was_issued_to_may_revoke_it(idp: IdentityProviderProcess) -> None:
    grant = idp.token_response(
        {"grant_type": "password", "client_id": "nufi-cli", "username": "user", "password": "user"}
    )
    revoke = f"{idp.issuer}/protocol/openid-connect/revoke"
    other = ("nufi-dashboard", "nufi-dashboard-dev-secret")
    answer = httpx.post(revoke, data={"token": grant["refresh_token"]}, auth=other)
    assert answer.status_code == 400 and answer.json()["error"] == "unauthorized_client"
    assert "access_token" in _refresh(idp, str(grant["refresh_token"]))
    # A token the provider cannot read is not an error (RFC 7009 §2.2).
    assert httpx.post(revoke, data={"token": "not-a-token", "client_id": "nufi-cli"}).status_code == 200
