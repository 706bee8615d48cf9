"""The authorization endpoint: a plain HTML login form for the browser flow (code + PKCE S256), in
the browser's language (Korean or English, by `Accept-Language`).

The form carries the authorization request in hidden fields and the POST checks it again, so the
provider keeps no state until a user has signed in. Field ids follow Keycloak's login page
(`username`, `password`, `kc-login`), so browser tests written against one work on the other.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from html import escape
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from nufi_sandbox.idp.context import RealmContext
from nufi_sandbox.idp.pages import Language, language_of, message_page, page, words
from nufi_sandbox.idp.pkce import S256
from nufi_sandbox.idp.realm import ClientSpec
from nufi_sandbox.idp.tokens import granted_scope


@dataclass(frozen=True)
class AuthorizationRequest:
    client_id: str = ""
    redirect_uri: str = ""
    response_type: str = ""
    scope: str = ""
    state: str = ""
    nonce: str = ""
    code_challenge: str = ""
    code_challenge_method: str = ""

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> AuthorizationRequest:
        return cls(**{name: str(params.get(name, "")) for name in cls.__dataclass_fields__})


class _Refused(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


async def authorization_page(realm: RealmContext, request: Request) -> Response:
    auth = AuthorizationRequest.from_params(request.query_params)
    language = language_of(request.headers.get("accept-language"))
    try:
        _check(realm, auth, language)
    except _Refused as refused:
        return refused.response
    return _login_form(realm, auth, language)


async def login_submit(realm: RealmContext, request: Request) -> Response:
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    auth = AuthorizationRequest.from_params(form)
    language = language_of(request.headers.get("accept-language"))
    try:
        client = _check(realm, auth, language)
    except _Refused as refused:
        return refused.response
    user = realm.spec.user(form.get("username", ""))
    password = form.get("password", "")
    if user is None or not hmac.compare_digest(password.encode(), user.password.encode()):
        return _login_form(realm, auth, language, invalid=True, username=form.get("username", ""))
    sid = realm.sessions.new_session()
    code = realm.sessions.issue_code(
        client_id=client.id,
        redirect_uri=auth.redirect_uri,
        username=user.username,
        scope=granted_scope(auth.scope),
        sid=sid,
        nonce=auth.nonce or None,
        code_challenge=auth.code_challenge or None,
    )
    params = {"code": code, "session_state": sid, "iss": realm.issuer}
    if auth.state:
        params = {"state": auth.state, **params}
    return RedirectResponse(with_query(auth.redirect_uri, params), status_code=302)


def _check(realm: RealmContext, auth: AuthorizationRequest, language: Language) -> ClientSpec:
    client = realm.spec.client(auth.client_id)
    if client is None:
        raise _Refused(message_page(language, "error.title", "error.client", 400))
    if not auth.redirect_uri or not client.accepts_redirect(auth.redirect_uri):
        # Never redirect to an address the client did not register.
        raise _Refused(message_page(language, "error.title", "error.redirect_uri", 400))
    if auth.response_type != "code":
        raise _Refused(
            _redirect_error(
                auth,
                "unsupported_response_type",
                "Client is not allowed to initiate "
                "browser login with given response_type. Only 'code' is supported",
            )
        )
    if auth.code_challenge and auth.code_challenge_method != S256:
        raise _Refused(_redirect_error(auth, "invalid_request", "Invalid parameter: code_challenge_method"))
    if auth.code_challenge_method and not auth.code_challenge:
        raise _Refused(_redirect_error(auth, "invalid_request", "Missing parameter: code_challenge"))
    return client


def with_query(uri: str, params: Mapping[str, str]) -> str:
    parts = urlsplit(uri)
    query = [*parse_qsl(parts.query, keep_blank_values=True), *params.items()]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def _redirect_error(auth: AuthorizationRequest, error: str, description: str) -> Response:
    params = {"error": error, "error_description": description}
    if auth.state:
        params["state"] = auth.state
    return RedirectResponse(with_query(auth.redirect_uri, params), status_code=302)


def _login_form(
    realm: RealmContext,
    auth: AuthorizationRequest,
    language: Language,
    *,
    invalid: bool = False,
    username: str = "",
) -> HTMLResponse:
    hidden = "\n".join(
        f"<input type='hidden' name='{name}' value='{escape(value)}'>"
        for name, value in asdict(auth).items()
        if value
    )
    said = {key: escape(words(language, f"sign_in.{key}")) for key in ("username", "password", "submit")}
    alert = f"<p><span id='input-error'>{escape(words(language, 'sign_in.invalid'))}</span></p>\n"
    body = (
        f"{alert if invalid else ''}"
        f"<form id='kc-form-login' method='post' action='{escape(realm.endpoint('auth'))}'>\n"
        f"{hidden}\n"
        f"<label for='username'>{said['username']}</label>\n"
        f"<input id='username' name='username' type='text' autocomplete='username' autofocus "
        f"value='{escape(username)}'>\n"
        f"<label for='password'>{said['password']}</label>\n"
        "<input id='password' name='password' type='password' autocomplete='current-password'>\n"
        f"<input id='kc-login' name='login' type='submit' value='{said['submit']}'>\n"
        "</form>"
    )
    return page(language, words(language, "sign_in.title", realm=realm.name), body)
