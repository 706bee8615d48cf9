"""`nufi login`: the OIDC authorization code flow with PKCE and a loopback redirect, as native apps
sign in (RFC 8252), against the issuer the server names at /api/v1/auth/cli."""

from __future__ import annotations

import secrets
import time
import webbrowser
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
import typer

from nufi.cli import exits, pkce
from nufi.cli.client import http_client
from nufi.cli.loopback import LoopbackReceiver
from nufi.cli.problems import Problem
from nufi.cli.say import say
from nufi.cli.tokens import StoredLogin, oauth_error


@dataclass(frozen=True)
class SignIn:
    """Where the sign-in goes: from the server's /api/v1/auth/cli and the issuer's discovery."""

    issuer: str
    client_id: str
    scope: str
    authorization_endpoint: str
    token_endpoint: str


def discover(http: httpx.Client, server: str) -> SignIn:
    config = _get_json(http, f"{server}/api/v1/auth/cli")
    issuer = config.get("issuer")
    if not issuer:
        raise exits.CliFailure(exits.UNAVAILABLE, [say("cli.login.no_issuer", server=server)])
    issuer = str(issuer).rstrip("/")
    metadata = _get_json(http, f"{issuer}/.well-known/openid-configuration")
    return SignIn(
        issuer=issuer,
        client_id=str(config["client_id"]),
        scope=str(config.get("scope") or "openid"),
        authorization_endpoint=str(metadata["authorization_endpoint"]),
        token_endpoint=str(metadata["token_endpoint"]),
    )


def revoke(http: httpx.Client, login: StoredLogin) -> str | None:
    """Revoke the login's refresh token at its issuer (RFC 7009, the `revocation_endpoint` of the
    issuer's discovery, as Keycloak publishes it); why it could not be, or None once revoked."""
    if not login.refresh_token:
        return None
    try:
        metadata = _get_json(http, f"{login.issuer.rstrip('/')}/.well-known/openid-configuration")
    except exits.CliFailure as failure:
        return "; ".join(failure.lines)
    endpoint = metadata.get("revocation_endpoint")
    if not isinstance(endpoint, str) or not endpoint:
        return say("cli.logout.no_revocation_endpoint", issuer=login.issuer)
    form = {"token": login.refresh_token, "token_type_hint": "refresh_token", "client_id": login.client_id}
    try:
        answer = http.post(endpoint, data=form)
    except httpx.HTTPError as exc:
        return say("cli.net.unreachable", url=endpoint, error=str(exc) or type(exc).__name__)
    if answer.status_code != httpx.codes.OK:
        return oauth_error(answer)
    return None


def authorization_url(sign_in: SignIn, redirect_uri: str, state: str, challenge: str) -> str:
    query = {
        "response_type": "code",
        "client_id": sign_in.client_id,
        "redirect_uri": redirect_uri,
        "scope": sign_in.scope,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": pkce.METHOD,
    }
    return f"{sign_in.authorization_endpoint}?{urlencode(query)}"


def sign_in(server: str, *, open_browser: bool, timeout: float) -> StoredLogin:
    """Tokens for `server`'s issuer once the person has signed in in a browser."""
    with http_client() as http:
        where = discover(http, server)
        verifier, state = pkce.new_verifier(), secrets.token_urlsafe(24)
        with LoopbackReceiver(state) as receiver:
            url = authorization_url(where, receiver.redirect_uri, state, pkce.challenge_of(verifier))
            if open_browser:
                typer.echo(say("cli.login.open_browser", issuer=where.issuer), err=True)
                typer.echo(say("cli.login.visit", url=url), err=True)
                webbrowser.open(url)
            else:
                typer.echo(say("cli.login.visit_only", issuer=where.issuer, url=url), err=True)
            typer.echo(say("cli.login.waiting"), err=True)
            answer = receiver.wait(timeout)
        code = _code_of(answer, timeout)
        form = {
            "grant_type": "authorization_code",
            "client_id": where.client_id,
            "code": code,
            "redirect_uri": receiver.redirect_uri,
            "code_verifier": verifier,
        }
        now = time.time()
        grant = _token(http, where.token_endpoint, form)
    blank = StoredLogin(server, where.issuer, where.client_id, where.token_endpoint, "", 0.0)
    return blank.with_grant(grant, now)


def _code_of(answer: dict[str, str] | None, timeout: float) -> str:
    # The listener takes only an answer carrying this sign-in's state (cli/loopback.py).
    if answer is None:
        raise exits.CliFailure(exits.UNAVAILABLE, [say("cli.login.timed_out", seconds=int(timeout))])
    if "code" not in answer:
        error = answer.get("error_description") or answer.get("error") or "?"
        raise exits.CliFailure(exits.UNAVAILABLE, [say("cli.login.refused", error=error)])
    return answer["code"]


def _token(http: httpx.Client, endpoint: str, form: dict[str, str]) -> dict[str, Any]:
    try:
        answer = http.post(endpoint, data=form)
    except httpx.HTTPError as exc:
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.net.unreachable", url=endpoint, error=str(exc))]
        ) from None
    body = answer.json() if answer.content else {}
    if answer.status_code != httpx.codes.OK or not isinstance(body, dict) or "access_token" not in body:
        error = body.get("error_description") or body.get("error") if isinstance(body, dict) else None
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.login.refused", error=error or f"HTTP {answer.status_code}")]
        )
    return body


def _get_json(http: httpx.Client, url: str) -> dict[str, Any]:
    try:
        answer = http.get(url)
    except httpx.HTTPError as exc:
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.net.unreachable", url=url, error=str(exc))]
        ) from None
    if answer.is_error:
        raise Problem.of(answer).failure()
    try:
        body = answer.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.net.not_json", url=url, status=answer.status_code)]
        )
    return body
