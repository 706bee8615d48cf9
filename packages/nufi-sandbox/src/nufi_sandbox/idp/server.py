"""The dev identity provider's HTTP face: Keycloak's URL layout under `/realms/{realm}`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import jwt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from nufi_sandbox.idp.context import OIDC_PATH, RealmContext
from nufi_sandbox.idp.grants import OAuthError, authenticate_client, token_grant
from nufi_sandbox.idp.login import authorization_page, login_submit, with_query
from nufi_sandbox.idp.pages import language_of, message_page
from nufi_sandbox.idp.pkce import S256

Endpoint = Callable[[RealmContext, Request], Awaitable[Response]]
_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
_USERINFO_CLAIMS = (
    "sub",
    "email_verified",
    "name",
    "preferred_username",
    "given_name",
    "family_name",
    "email",
)


def discovery_document(realm: RealmContext) -> dict[str, Any]:
    return {
        "issuer": realm.issuer,
        "authorization_endpoint": realm.endpoint("auth"),
        "token_endpoint": realm.endpoint("token"),
        "userinfo_endpoint": realm.endpoint("userinfo"),
        "end_session_endpoint": realm.endpoint("logout"),
        "revocation_endpoint": realm.endpoint("revoke"),
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "jwks_uri": realm.endpoint("certs"),
        "grant_types_supported": ["authorization_code", "refresh_token", "password", "client_credentials"],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": [S256],
        "scopes_supported": ["openid", "profile", "email"],
        "claims_supported": ["iss", "sub", "aud", "exp", "iat", "azp", *_USERINFO_CLAIMS[2:]],
        "authorization_response_iss_parameter_supported": True,
    }


async def _discovery(realm: RealmContext, request: Request) -> Response:
    return JSONResponse(discovery_document(realm))


async def _certs(realm: RealmContext, request: Request) -> Response:
    return JSONResponse(realm.keys.jwks())


async def _token(realm: RealmContext, request: Request) -> Response:
    try:
        form = await _form(request)
        body = token_grant(realm, form, request.headers.get("authorization"))
    except OAuthError as exc:
        return JSONResponse(exc.body(), status_code=exc.status, headers=_NO_STORE)
    return JSONResponse(body, headers=_NO_STORE)


async def _auth(realm: RealmContext, request: Request) -> Response:
    if request.method == "POST":
        return await login_submit(realm, request)
    return await authorization_page(realm, request)


async def _userinfo(realm: RealmContext, request: Request) -> Response:
    header = request.headers.get("authorization", "")
    token = header[7:].strip() if header[:7].lower() == "bearer " else ""
    if not token and request.method == "POST":
        token = (await _form(request)).get("access_token", "")
    try:
        claims = realm.keys.verify(token, realm.issuer)
    except jwt.PyJWTError:
        claims = {}
    sid = claims.get("sid")
    if claims.get("typ") != "Bearer" or (isinstance(sid, str) and not realm.sessions.is_active(sid)):
        return JSONResponse(
            {"error": "invalid_token", "error_description": "Token verification failed"},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer realm="' + realm.name + '", error="invalid_token"'},
        )
    return JSONResponse({k: claims[k] for k in _USERINFO_CLAIMS if k in claims}, headers=_NO_STORE)


async def _logout(realm: RealmContext, request: Request) -> Response:
    if request.method == "POST":
        return await _logout_backchannel(realm, request)
    params = request.query_params
    language = language_of(request.headers.get("accept-language"))
    azp = params.get("client_id")
    hint = params.get("id_token_hint")
    if hint:
        try:
            claims = realm.keys.verify(hint, realm.issuer, allow_expired=True)
        except jwt.PyJWTError:
            return message_page(language, "error.title", "error.id_token_hint", 400)
        if isinstance(claims.get("sid"), str):
            realm.sessions.end_session(claims["sid"])
        azp = azp or claims.get("azp")
    target = params.get("post_logout_redirect_uri")
    if target:
        client = realm.spec.client(azp) if isinstance(azp, str) else None
        if client is None or not client.accepts_redirect(target):
            return message_page(language, "error.title", "error.logout_redirect", 400)
        state = params.get("state")
        return RedirectResponse(with_query(target, {"state": state}) if state else target, status_code=302)
    return message_page(language, "logout.title", "logout.body", 200)


async def _logout_backchannel(realm: RealmContext, request: Request) -> Response:
    """What an application posts to end a session: its client credentials and the refresh token."""
    try:
        form = await _form(request)
        client = authenticate_client(realm, form, request.headers.get("authorization"))
        try:
            claims = realm.keys.verify_refresh(form.get("refresh_token", ""), realm.issuer)
        except jwt.PyJWTError:
            raise OAuthError("invalid_grant", "Invalid refresh token") from None
        if claims.get("azp") != client.id:
            raise OAuthError("invalid_grant", "Invalid refresh token")
    except OAuthError as exc:
        return JSONResponse(exc.body(), status_code=exc.status, headers=_NO_STORE)
    realm.sessions.end_session(str(claims["sid"]))
    return Response(status_code=204)


async def _revoke(realm: RealmContext, request: Request) -> Response:
    """Token revocation (RFC 7009) as Keycloak answers it: a refresh token of the calling client ends
    its session, so the token endpoint refuses that refresh token from then on. A token that is not
    valid (or an access token, which the dev provider cannot take back) gets 200 all the same."""
    try:
        form = await _form(request)
        client = authenticate_client(realm, form, request.headers.get("authorization"))
        token = form.get("token")
        if not token:
            raise OAuthError("invalid_request", "Token not provided")
        try:
            claims = realm.keys.verify_refresh(token, realm.issuer)
        except jwt.PyJWTError:
            return Response(status_code=200, headers=_NO_STORE)
        if claims.get("azp") != client.id:
            raise OAuthError("unauthorized_client", "Unmatching clients")
    except OAuthError as exc:
        return JSONResponse(exc.body(), status_code=exc.status, headers=_NO_STORE)
    if isinstance(claims.get("sid"), str):
        realm.sessions.end_session(claims["sid"])
    return Response(status_code=200, headers=_NO_STORE)


async def _form(request: Request) -> dict[str, str]:
    try:
        form = await request.form()
    except Exception as exc:
        raise OAuthError("invalid_request", f"the body is not a form: {exc}") from None
    return {key: value for key, value in form.items() if isinstance(value, str)}


def create_app(realm: RealmContext) -> Starlette:
    def bind(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            if request.path_params.get("realm") != realm.name:
                return JSONResponse({"error": "Realm does not exist"}, status_code=404)
            realm.reread_if_changed()
            return await endpoint(realm, request)

        return handle

    base = "/realms/{realm}"
    oidc = base + OIDC_PATH
    routes = [
        Route(base + "/.well-known/openid-configuration", bind(_discovery), methods=["GET"]),
        Route(oidc + "/certs", bind(_certs), methods=["GET"]),
        Route(oidc + "/token", bind(_token), methods=["POST"]),
        Route(oidc + "/auth", bind(_auth), methods=["GET", "POST"]),
        Route(oidc + "/userinfo", bind(_userinfo), methods=["GET", "POST"]),
        Route(oidc + "/logout", bind(_logout), methods=["GET", "POST"]),
        Route(oidc + "/revoke", bind(_revoke), methods=["POST"]),
    ]
    return Starlette(routes=routes)
