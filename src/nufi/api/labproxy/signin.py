"""Signing a browser in to one lab, across the dashboard's origin and the lab's own (the grant and its
binding to the browser: nufi.auth.lab_grants).

1. Dashboard's origin, `/labs/<p>/<n>/...` opened as a page by a member (nufi.api.labproxy.proxy): 302 to
   `<lab origin>/_nufi/lab-signin?next=<path>&return=<the dashboard's address, sealed>`.
2. Lab's host, no grant: a fresh random state in the browser's state cookie, 302 to
   `<dashboard>/_nufi/lab-grant?next=<path>&state=<state>`.
3. Dashboard's origin, `/_nufi/lab-grant`: the session resolved (or signed in first), the member
   checked, 302 to `<lab origin>/_nufi/lab-signin?grant=<...>&next=<path>`, the grant naming that lab,
   that session (by its id's hash) and that state.
4. Lab's host with the grant: spent, held against the state cookie, the lab's host and the session,
   then 303 to the path with the lab cookie.

Every step is a GET a page could make a browser do, and none hands anyone else anything: the grant
only ever goes to the lab's own host (its address computed, never taken from the request), and it
opens only in the browser holding the state.
"""

from __future__ import annotations

import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from nufi.api.labproxy.forward import SESSION_COOKIE
from nufi.api.labproxy.origin import (
    LabAccess,
    grant_refused,
    lab_origin_unset,
    lab_redirect,
    next_for,
    not_on_this_host,
)
from nufi.api.labproxy.paths import LOGIN_PATH, LabPath, match_lab_path
from nufi.api.problems import nufi_error_response, problem_response, request_id_in
from nufi.auth.lab_grants import LabPass
from nufi.auth.web_login import safe_next
from nufi.auth.web_sessions import session_hash
from nufi.auth.web_tokens import SealBroken
from nufi.errors import NufiError, Unauthorized
from nufi.services import Services

GRANT_PATH = "/_nufi/lab-grant"
_MAX_SESSION_ID_LENGTH = 256
_MAX_STATE_LENGTH = 64


def first_step(access: LabAccess, lab: LabPath, next_path: str, dashboard: str) -> str:
    """Step 1: where the dashboard sends a member opening `lab`."""
    assert access.origins is not None and access.grants is not None
    origin = access.origins.origin(lab.project, lab.name)
    return access.sign_in_url(origin, next=next_path, **{"return": access.grants.seal_return(dashboard)})


async def at_lab_host(
    services: Services, access: LabAccess, scope: Scope, receive: Receive, send: Send
) -> None:
    """`/_nufi/lab-signin` on a lab's host: step 2 without a grant, step 4 with one."""
    request_id = request_id_in(scope)
    sessions, grants, origins = services.web_sessions, access.grants, access.origins
    if sessions is None or grants is None or origins is None:
        await not_on_this_host(scope["path"], request_id)(scope, receive, send)
        return
    headers = Headers(scope=scope)
    query = _query(scope)
    next_path = query.get("next", "")
    lab = _lab_of(next_path)
    if lab is None or not origins.serves(headers.get("host", ""), lab.project, lab.name):
        await _bad_next(next_path, request_id)(scope, receive, send)
        return
    response: Response
    if "grant" not in query:
        dashboard = access.dashboard_url
        if dashboard is None:
            try:
                dashboard = grants.open_return(query.get("return", ""))
            except SealBroken:
                await nufi_error_response(Unauthorized(code="lab.sign_in"), request_id)(scope, receive, send)
                return
        state = secrets.token_urlsafe(24)
        location = f"{dashboard}{GRANT_PATH}?{urlencode({'next': next_path, 'state': state})}"
        response = lab_redirect(location, 302, access.set_state_cookie(state))
        await response(scope, receive, send)
        return
    try:
        granted = grants.redeem(query["grant"], state=access.state_cookie(headers) or "")
        if (granted.project, granted.name) != (lab.project, lab.name):
            raise SealBroken("it is for another lab")
        principal = await sessions.resolve_by_hash(granted.session_hash)
        if principal is None:
            raise SealBroken("the dashboard session it came from has ended")
        await services.labs.route(principal, granted.project, granted.name)
        response = lab_redirect(
            next_for(granted, next_path), 303, access.set_cookie(granted), access.drop_state_cookie()
        )
    except SealBroken as exc:
        response = grant_refused(exc, request_id)
    except NufiError as exc:
        response = nufi_error_response(exc, request_id)
    await response(scope, receive, send)


async def grant(services: Services, access: LabAccess, scope: Scope, receive: Receive, send: Send) -> None:
    """Step 3, `/_nufi/lab-grant` on the dashboard's origin."""
    request_id = request_id_in(scope)
    sessions, grants, origins = services.web_sessions, access.grants, access.origins
    if sessions is None or grants is None or origins is None:
        await lab_origin_unset(request_id)(scope, receive, send)
        return
    query = _query(scope)
    next_path, state = query.get("next", ""), query.get("state", "")
    lab = _lab_of(next_path)
    if lab is None or not 16 <= len(state) <= _MAX_STATE_LENGTH:
        await _bad_next(next_path, request_id)(scope, receive, send)
        return
    session_id = cookie_parser(Headers(scope=scope).get("cookie", "")).get(SESSION_COOKIE) or ""
    principal = None
    if session_id and len(session_id) <= _MAX_SESSION_ID_LENGTH:
        principal = await sessions.resolve(session_id)
    if principal is None:
        here = f"{GRANT_PATH}?{urlencode({'next': next_path, 'state': state})}"
        await lab_redirect(f"{LOGIN_PATH}?{urlencode({'next': safe_next(here)})}", 302)(scope, receive, send)
        return
    try:
        await services.labs.route(principal, lab.project, lab.name)
    except NufiError as exc:
        await nufi_error_response(exc, request_id)(scope, receive, send)
        return
    sealed = grants.grant(LabPass(lab.project, lab.name, session_hash(session_id)), state=state)
    location = access.sign_in_url(origins.origin(lab.project, lab.name), grant=sealed, next=next_path)
    await lab_redirect(location, 302)(scope, receive, send)


def _lab_of(next_path: str) -> LabPath | None:
    """The lab whose path `next_path` is, when it is a plain path on this site."""
    if not next_path or safe_next(next_path) != next_path:
        return None
    return match_lab_path(urlsplit(next_path).path)


def _bad_next(next_path: str, request_id: str | None) -> Response:
    return problem_response(
        status=400,
        type="invalid-lab-sign-in",
        code="lab.bad_sign_in_next",
        params={"next": next_path[:200]},
        title="Bad request",
        request_id=request_id,
        extra={"field": "next"},
    )


def _query(scope: Scope) -> dict[str, str]:
    raw = scope.get("query_string") or b""
    parsed = parse_qs(raw.decode("latin-1"), keep_blank_values=True)
    return {name: values[0] for name, values in parsed.items() if values}
