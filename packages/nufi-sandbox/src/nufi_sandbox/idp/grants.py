"""The token endpoint: client authentication and the grant types (password, refresh_token,
authorization_code with PKCE, client_credentials), with Keycloak's error bodies."""

from __future__ import annotations

import base64
import binascii
import hmac
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote_plus

import jwt

from nufi_sandbox.idp.context import RealmContext
from nufi_sandbox.idp.pkce import verifier_matches
from nufi_sandbox.idp.realm import ClientSpec
from nufi_sandbox.idp.tokens import granted_scope, service_account_subject, user_subject


class OAuthError(Exception):
    """An RFC 6749 §5.2 error answer: `{"error", "error_description"}` with `status`."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


def _invalid_client() -> OAuthError:
    return OAuthError("invalid_client", "Invalid client or Invalid client credentials", 401)


def _invalid_user_credentials() -> OAuthError:
    return OAuthError("invalid_grant", "Invalid user credentials", 401)


def authenticate_client(
    realm: RealmContext, form: Mapping[str, str], authorization: str | None
) -> ClientSpec:
    """The calling client: from HTTP Basic (RFC 6749 §2.3.1) or `client_id`/`client_secret` in the form."""
    client_id = form.get("client_id")
    secret = form.get("client_secret")
    if authorization is not None and authorization[:6].lower() == "basic ":
        basic_id, basic_secret = _parse_basic(authorization[6:])
        if client_id is not None and client_id != basic_id:
            raise _invalid_client()
        client_id, secret = basic_id, basic_secret
    if not client_id:
        raise OAuthError("invalid_client", "Missing parameter: client_id", 401)
    client = realm.spec.client(client_id)
    if client is None:
        raise _invalid_client()
    if not client.public:
        assert client.secret is not None
        if secret is None or not hmac.compare_digest(secret.encode(), client.secret.encode()):
            raise _invalid_client()
    return client


def _parse_basic(encoded: str) -> tuple[str, str]:
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise _invalid_client() from None
    client_id, sep, secret = decoded.partition(":")
    if not sep:
        raise _invalid_client()
    return unquote_plus(client_id), unquote_plus(secret)


def token_grant(realm: RealmContext, form: Mapping[str, str], authorization: str | None) -> dict[str, Any]:
    grant_type = form.get("grant_type")
    if not grant_type:
        raise OAuthError("invalid_request", "Missing form parameter: grant_type")
    handler = _GRANTS.get(grant_type)
    if handler is None:
        raise OAuthError("unsupported_grant_type", f"Unsupported grant_type {grant_type}")
    client = authenticate_client(realm, form, authorization)
    return handler(realm, client, form)


def _password(realm: RealmContext, client: ClientSpec, form: Mapping[str, str]) -> dict[str, Any]:
    user = realm.spec.user(form.get("username", ""))
    password = form.get("password", "")
    if user is None or not hmac.compare_digest(password.encode(), user.password.encode()):
        raise _invalid_user_credentials()
    sid = realm.sessions.new_session()
    return realm.minter.token_response(
        user_subject(realm.name, user),
        client,
        scope=granted_scope(form.get("scope")),
        sid=sid,
        auth_time=int(time.time()),
    )


def _refresh_token(realm: RealmContext, client: ClientSpec, form: Mapping[str, str]) -> dict[str, Any]:
    token = form.get("refresh_token")
    if not token:
        raise OAuthError("invalid_request", "Missing form parameter: refresh_token")
    try:
        claims = realm.keys.verify_refresh(token, realm.issuer)
    except jwt.ExpiredSignatureError:
        raise OAuthError("invalid_grant", "Token is not active") from None
    except jwt.PyJWTError:
        raise OAuthError("invalid_grant", "Invalid refresh token") from None
    if claims.get("typ") != "Refresh":
        raise OAuthError("invalid_grant", "Invalid refresh token")
    if claims.get("azp") != client.id:
        raise OAuthError(
            "invalid_grant", "Invalid refresh token. Token client and authorized client don't match"
        )
    sid = str(claims["sid"])
    if not realm.sessions.is_active(sid):
        raise OAuthError("invalid_grant", "Session not active")
    user = next(
        (u for u in realm.spec.users if user_subject(realm.name, u).id == claims.get("sub")),
        None,
    )
    if user is None:
        raise OAuthError("invalid_grant", "User not found")
    scope = claims.get("scope")
    return realm.minter.token_response(
        user_subject(realm.name, user),
        client,
        scope=scope if isinstance(scope, str) else granted_scope(None),
        sid=sid,
        nonce=claims.get("nonce") if isinstance(claims.get("nonce"), str) else None,
    )


def _authorization_code(realm: RealmContext, client: ClientSpec, form: Mapping[str, str]) -> dict[str, Any]:
    code = form.get("code")
    if not code:
        raise OAuthError("invalid_request", "Missing parameter: code")
    pending = realm.sessions.redeem_code(code)
    if pending is None or pending.client_id != client.id:
        raise OAuthError("invalid_grant", "Code not valid")
    if form.get("redirect_uri") != pending.redirect_uri:
        raise OAuthError("invalid_grant", "Incorrect redirect_uri")
    if pending.code_challenge is not None:
        verifier = form.get("code_verifier")
        if not verifier:
            raise OAuthError("invalid_grant", "PKCE code verifier not specified")
        if not verifier_matches(verifier, pending.code_challenge):
            raise OAuthError("invalid_grant", "PKCE verification failed: Invalid code verifier")
    user = realm.spec.user(pending.username)
    if user is None or not realm.sessions.is_active(pending.sid):
        raise OAuthError("invalid_grant", "Session not active")
    return realm.minter.token_response(
        user_subject(realm.name, user),
        client,
        scope=pending.scope,
        sid=pending.sid,
        auth_time=pending.auth_time,
        nonce=pending.nonce,
    )


def _client_credentials(realm: RealmContext, client: ClientSpec, form: Mapping[str, str]) -> dict[str, Any]:
    if client.public:
        raise OAuthError("unauthorized_client", "Public client not allowed to retrieve service account")
    return realm.minter.token_response(
        service_account_subject(realm.name, client), client, scope=granted_scope(form.get("scope")), sid=None
    )


_GRANTS = {
    "password": _password,
    "refresh_token": _refresh_token,
    "authorization_code": _authorization_code,
    "client_credentials": _client_credentials,
}
