"""Dashboard sign-in: the OIDC routes under /auth/ and `signed_in` for the dashboard's pages.

The browser gets one cookie, `nufi_session`, holding a random id; the tokens stay on the server
(`nufi.auth.web_sessions`). While a sign-in is in flight a second, short-lived cookie holds its
state, PKCE verifier and nonce, sealed, scoped to the callback path.

Finding the services: routes of this router run in the FastAPI app that includes it, so
`request.app.state.services` is there. Dashboard pages may run in a sub-app NiceGUI mounts, whose
`request.app` is NiceGUI's and knows nothing of NuFi's state; for them the router's own lifespan
(merged into the including app's, and entered after it) remembers the services of every running app
that includes it, and `signed_in` falls back to the latest one. One process serves one app, so that
is unambiguous; tests running apps one after another get each its own.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from html import escape
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from nufi.auth import IdentityProviderUnavailable, InvalidToken, Principal
from nufi.auth.web_login import PendingLogin, safe_next
from nufi.auth.web_oidc import IssuerRefused
from nufi.auth.web_origin import from_own_origin, is_loopback_host, origin_of, own_origin
from nufi.auth.web_sessions import WebSessions, missing_settings
from nufi.auth.web_tokens import SealBroken
from nufi.services import Services
from nufi.ui.i18n import Language, text
from nufi.ui.language_choice import language_of

SESSION_COOKIE = "nufi_session"
LOGIN_COOKIE = "nufi_login"
LOGIN_PATH = "/auth/login"
CALLBACK_PATH = "/auth/callback"
LOGOUT_PATH = "/auth/logout"
# Far above the 43 characters NuFi's ids have: anything longer is not ours and is not looked up.
_MAX_SESSION_ID_LENGTH = 256
_NO_STORE = {"Cache-Control": "no-store"}

_running: list[Services] = []


@asynccontextmanager
async def _remember_services(app: FastAPI) -> AsyncIterator[None]:
    services = getattr(app.state, "services", None)
    if isinstance(services, Services):
        _running.append(services)
    try:
        yield
    finally:
        _running[:] = [s for s in _running if s is not services]


router = APIRouter(include_in_schema=False, lifespan=_remember_services)


def sign_in_url(next_path: str) -> str:
    """Where to send a browser to sign in and then come back to `next_path` (a path on this site)."""
    return f"{LOGIN_PATH}?{urlencode({'next': next_path})}"


async def signed_in(request: Request) -> Principal | None:
    """The principal of the request's dashboard session, its tokens refreshed first when they expire
    within a minute; None when there is no session, it ended, or refreshing failed (the session is
    then deleted). Also None, the session kept, while the issuer is unreachable and the access
    token has expired."""
    session_id = request.cookies.get(SESSION_COOKIE)
    if not session_id or len(session_id) > _MAX_SESSION_ID_LENGTH:
        return None
    services = _services(request)
    if services is None or services.web_sessions is None:
        return None
    return await services.web_sessions.resolve(session_id)


@router.get(LOGIN_PATH)
async def login(request: Request, next_path: Annotated[str | None, Query(alias="next")] = None) -> Response:
    sessions = _sessions_or_page(request)
    if isinstance(sessions, Response):
        return sessions
    target = safe_next(next_path)
    base = _base_url(request)
    if base is None:
        return _unknown_address_page(language_of(request))
    try:
        url, sealed = await sessions.begin(redirect_uri=base + CALLBACK_PATH, next_path=target)
    except IdentityProviderUnavailable as exc:
        return _unreachable_page(language_of(request), exc.text(language_of(request)), next_path=target)
    response = RedirectResponse(url, status_code=302, headers=_NO_STORE)
    response.set_cookie(
        LOGIN_COOKIE,
        sealed,
        max_age=sessions.logins.max_age_seconds,
        path=CALLBACK_PATH,
        secure=_secure(request),
        httponly=True,
        samesite="lax",
    )
    return response


@router.get(CALLBACK_PATH)
async def callback(request: Request) -> Response:
    sessions = _sessions_or_page(request)
    if isinstance(sessions, Response):
        return sessions
    language = language_of(request)
    pending = _pending_or_page(request, sessions, language)
    if isinstance(pending, Response):
        return _callback_page(request, pending)
    try:
        new = await sessions.finish(request.query_params["code"], pending)
    except IdentityProviderUnavailable as exc:
        return _callback_page(
            request, _unreachable_page(language, exc.text(language), next_path=pending.next_path)
        )
    except (IssuerRefused, InvalidToken) as exc:
        refused = _page(
            language,
            "signin.refused.title",
            "signin.refused.message",
            401,
            next_path=pending.next_path,
            detail=exc.text(language),
        )
        return _callback_page(request, refused)
    response = RedirectResponse(pending.next_path, status_code=303, headers=_NO_STORE)
    max_age = max(0, int((new.expires_at - datetime.now(UTC)).total_seconds()))
    response.set_cookie(
        SESSION_COOKIE,
        new.session_id,
        max_age=max_age,
        path="/",
        secure=_secure(request),
        httponly=True,
        samesite="lax",
    )
    _forget_login(request, response)
    return response


def _pending_or_page(
    request: Request, sessions: WebSessions, language: Language
) -> PendingLogin | HTMLResponse:
    """The sign-in this callback finishes, with a code to exchange from its own issuer; else the page
    saying why it cannot be finished."""
    params = request.query_params
    error = params.get("error")
    if error:
        said = {"reason": params.get("error_description") or error}
        return _page(language, "signin.not_completed.title", "signin.not_completed.message", 403, said)
    unfinished = "signin.unfinished.title"
    try:
        pending = sessions.pending(request.cookies.get(LOGIN_COOKIE, ""))
    except SealBroken:
        return _page(language, unfinished, "signin.unfinished.expired", 400)
    if not hmac.compare_digest(params.get("state", "").encode(), pending.state.encode()):
        message = "signin.unfinished.state"
        return _page(language, unfinished, message, 400, next_path=pending.next_path)
    issuer = params.get("iss")
    code = params.get("code")
    if (issuer is not None and issuer != sessions.client.issuer) or not code:
        message = "signin.unfinished.issuer" if code else "signin.unfinished.no_code"
        return _page(language, unfinished, message, 400, next_path=pending.next_path)
    return pending


@router.post(LOGOUT_PATH)
async def logout(request: Request) -> Response:
    # SameSite=Lax keeps the cookie off cross-site POSTs, but not off those from a sibling origin of
    # the same site (another port, another host name under the same domain): the origin decides.
    if not same_origin(request):
        language = language_of(request)
        return _page(language, "signout.refused.title", "signout.refused.message", 403, retry=False)
    target: str | None = None
    services = _services(request)
    session_id = request.cookies.get(SESSION_COOKIE)
    if services is not None and services.web_sessions is not None and session_id:
        # An unknown address still signs out; the issuer then just has nowhere to send the browser back.
        target = await services.web_sessions.end(
            session_id, post_logout_redirect_uri=(_base_url(request) or "") + "/"
        )
    response = RedirectResponse(target or "/", status_code=303, headers=_NO_STORE)
    response.delete_cookie(SESSION_COOKIE, path="/", secure=_secure(request), httponly=True, samesite="lax")
    return response


def _services(request: Request) -> Services | None:
    services = getattr(request.app.state, "services", None)
    if isinstance(services, Services):
        return services
    return _running[-1] if _running else None


def _sessions_or_page(request: Request) -> WebSessions | Response:
    services = _services(request)
    language = language_of(request)
    if services is None:
        return _page(language, "signin.not_ready.title", "signin.not_ready.message", 503)
    if services.web_sessions is None:
        missing = ", ".join(missing_settings(services.settings)) or text(
            language, "signin.unconfigured.settings"
        )
        fields = {"missing": missing}
        return _page(
            language, "signin.unconfigured.title", "signin.unconfigured.message", 503, fields, retry=False
        )
    return services.web_sessions


def public_url(request: Request) -> str | None:
    services = _services(request)
    return services.settings.dashboard_public_url if services is not None else None


def same_origin(request: Request) -> bool:
    """Whether a browser's request that changes state with the session cookie comes from a NuFi
    page (see `nufi.auth.web_origin`)."""
    own = own_origin(public_url(request), scheme=request.url.scheme, host_header=request.headers.get("host"))
    return from_own_origin(request.headers, own)


def _base_url(request: Request) -> str | None:
    """Where browsers reach the dashboard: NUFI_DASHBOARD_PUBLIC_URL; without it the request's own
    address, but only on a loopback name. A Host header is the client's to choose, so it never
    decides a redirect URI, nor whether cookies are Secure, anywhere else."""
    configured = public_url(request)
    if configured:
        return configured.rstrip("/")
    if is_loopback_host(request.headers.get("host")):
        return str(request.base_url).rstrip("/")
    return None


def _secure(request: Request) -> bool:
    configured = public_url(request)
    if configured:
        return (origin_of(configured) or "").startswith("https:")
    # No address configured: plain HTTP on loopback only; anywhere else Secure, so that a cookie is
    # never sent in the clear because of what a Host header said.
    return not is_loopback_host(request.headers.get("host"))


def _unknown_address_page(language: Language) -> HTMLResponse:
    return _page(language, "signin.unknown_address.title", "signin.unknown_address.message", 400, retry=False)


def _unreachable_page(language: Language, detail: str, *, next_path: str) -> HTMLResponse:
    return _page(
        language,
        "signin.unreachable.title",
        "signin.unreachable.message",
        503,
        next_path=next_path,
        detail=detail,
    )


def _forget_login(request: Request, response: Response) -> None:
    response.delete_cookie(
        LOGIN_COOKIE, path=CALLBACK_PATH, secure=_secure(request), httponly=True, samesite="lax"
    )


def _callback_page(request: Request, response: HTMLResponse) -> Response:
    _forget_login(request, response)
    return response


def _page(
    language: Language,
    title: str,
    message: str,
    status: int,
    fields: Mapping[str, object] | None = None,
    *,
    next_path: str = "/",
    retry: bool = True,
    detail: str | None = None,
) -> HTMLResponse:
    """A short page saying what happened, in the reader's language: the sign-in routes answer a
    browser, not an API client. `title` and `message` are the keys of its texts (`fields`, those its
    message takes, when it takes any); `detail` is what the identity provider or the
    token check said, as they said it, for whoever has to look into it."""
    title = text(language, title)
    message = text(language, message, **(fields or {}))
    said = f"<p id='detail'>{escape(text(language, 'signin.detail', detail=detail))}</p>\n" if detail else ""
    again = (
        f"<p><a id='sign-in-again' href='{escape(sign_in_url(next_path))}'>"
        f"{escape(text(language, 'signin.again'))}</a></p>\n"
        if retry
        else ""
    )
    html = (
        f"<!DOCTYPE html>\n<html lang='{language}'><head><meta charset='utf-8'>"
        f"<title>{escape(title)} - {escape(text(language, 'app.title'))}</title></head>\n<body>\n"
        f"<h1>{escape(title)}</h1>\n<p id='message'>{escape(message)}</p>\n{said}{again}</body></html>\n"
    )
    return HTMLResponse(html, status_code=status, headers=_NO_STORE)
