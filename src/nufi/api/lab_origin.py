"""The lab proxy's side of "every lab on an origin of its own" (nufi.workloads.labs.origin).

On the dashboard's origin a browser signed in to the dashboard is never served a lab: opening
`/labs/<p>/<n>/...` there, it is checked (a member or an admin) and sent to
`<lab origin>/_nufi/lab-signin?grant=...&next=<path>`, whose grant (nufi.auth.lab_grants) the lab's
host exchanges for a host-only lab cookie. On a lab's host only that lab's paths are served, only the
lab cookie (never the dashboard's) or a bearer token is accepted, and a cookie caller's WebSocket
handshake or state-changing request must come from the lab's own origin.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlencode

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import RedirectResponse, Response
from starlette.types import Message, Receive, Scope, Send

from nufi.api.problems import nufi_error_response, problem_response
from nufi.auth.lab_grants import LabGrants, LabPass
from nufi.auth.web_login import safe_next
from nufi.auth.web_tokens import SealBroken
from nufi.config import Settings
from nufi.errors import NufiError
from nufi.services import Services
from nufi.workloads.labs.origin import LabOrigins

SIGN_IN_PATH = "/_nufi/lab-signin"
# Over https the cookie takes the `__Host-` prefix: a browser then refuses it unless it is Secure,
# host-only and for every path, so no sibling lab (whose host shares the parent domain) can plant one.
LAB_COOKIE = "nufi_lab"
SECURE_LAB_COOKIE = "__Host-nufi_lab"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The policy every lab answer carries on the dashboard's origin (bearer callers only: scripts, tests):
# a browser that ever renders one does so in an opaque origin, with no access to NuFi's.
SANDBOXED_POLICY = "sandbox; frame-ancestors 'none'"
_MAX_COOKIE_LENGTH = 4096
_UNSET = (
    "labs open in a browser only on an origin of their own, and none is configured: an administrator "
    'must set NUFI_LAB_BASE_DOMAIN (see docs/install.md, "Lab base domain"); scripts may still '
    "reach a lab here with 'Authorization: Bearer <access token>'"
)


@dataclass(frozen=True)
class LabAccess:
    """How browsers reach labs on this server: their origins (None: no lab base domain set), the
    grants and cookies (None: no dashboard sign-in), and the dashboard to sign in at."""

    origins: LabOrigins | None
    grants: LabGrants | None
    dashboard_url: str | None

    @classmethod
    def from_settings(cls, settings: Settings) -> LabAccess:
        origins = LabOrigins.from_settings(settings.lab_base_domain, settings.dashboard_public_url)
        secret = settings.dashboard_session_secret
        grants = None
        if secret is not None:
            grants = LabGrants(
                secret.get_secret_value(), cookie_seconds=settings.dashboard_session_lifetime_seconds
            )
        url = settings.dashboard_public_url
        return cls(origins=origins, grants=grants, dashboard_url=url.rstrip("/") if url else None)

    def on_lab_host(self, headers: Headers) -> bool:
        return self.origins is not None and self.origins.under(headers.get("host", ""))

    @property
    def cookie_name(self) -> str:
        return SECURE_LAB_COOKIE if self.origins is not None and self.origins.secure else LAB_COOKIE

    def lab_cookie(self, headers: Headers) -> str | None:
        value = cookie_parser(headers.get("cookie", "")).get(self.cookie_name)
        return value if value and len(value) <= _MAX_COOKIE_LENGTH else None

    def grant_url(self, origins: LabOrigins, grants: LabGrants, lab: LabPass, next_path: str) -> str:
        query = urlencode({"grant": grants.grant(lab), "next": next_path})
        return f"{origins.origin(lab.project, lab.name)}{SIGN_IN_PATH}?{query}"

    def set_cookie(self, lab: LabPass) -> str:
        assert self.grants is not None
        secure = "; Secure" if self.origins is not None and self.origins.secure else ""
        return f"{self.cookie_name}={self.grants.cookie(lab)}; Path=/; HttpOnly; SameSite=Lax{secure}"


def own_origin(headers: Headers, expected: str) -> bool:
    """Whether the request's `Origin` is exactly the lab's (a missing one is not)."""
    return headers.get("origin", "").rstrip("/").lower() == expected.lower()


def sign_in_request(query_string: str) -> tuple[str, str]:
    """The grant and next path of `/_nufi/lab-signin?grant=...&next=...` (empty when absent)."""
    values = parse_qs(query_string, keep_blank_values=True)
    return (values.get("grant") or [""])[0], (values.get("next") or [""])[0]


def next_for(lab: LabPass, candidate: str) -> str:
    """Where the lab sign-in sends the browser: `candidate` when it is a path of that lab, else the
    lab's top."""
    safe = safe_next(candidate)
    prefixes = (f"/labs/{lab.project}/{lab.name}/", f"/notebook/{lab.project}/{lab.name}/")
    return safe if safe.startswith(prefixes) else prefixes[0]


def signed_in(location: str, set_cookie: str) -> Response:
    response = RedirectResponse(location, status_code=303, headers={"Cache-Control": "no-store"})
    response.raw_headers.append((b"set-cookie", set_cookie.encode("latin-1")))
    return response


def has_dot_segment(raw_path: str) -> bool:
    """Whether a path (as sent, percent-encoded) holds a `.` or `..` segment, as it is or once or twice
    decoded, with `\\` read as `/` (some servers do): such a path could leave the lab's prefix upstream."""
    text = raw_path
    for _ in range(3):
        parts = text.replace("\\", "/").split("/")
        if any(part in (".", "..") for part in parts):
            return True
        decoded = unquote(text)
        if decoded == text:
            return False
        text = decoded
    return True  # still encoded after three rounds: nobody needs that


def lab_origin_unset(request_id: str | None) -> Response:
    return problem_response(
        status=403, type="lab-origin-unset", title="Forbidden", detail=_UNSET, request_id=request_id
    )


def lab_elsewhere(origin: str, request_id: str | None) -> Response:
    return problem_response(
        status=403,
        type="lab-on-its-own-origin",
        title="Forbidden",
        detail=f"this lab is served to browsers at {origin} only: open it there (or from the dashboard), "
        "or send 'Authorization: Bearer <access token>'",
        request_id=request_id,
        extra={"origin": origin},
    )


def origin_refused(origin: str, request_id: str | None) -> Response:
    return problem_response(
        status=403,
        type="origin-refused",
        title="Forbidden",
        detail="a lab takes WebSockets, and changes signed in by its cookie, only from its own origin "
        f"{origin}: open the lab there",
        request_id=request_id,
        extra={"origin": origin},
    )


def grant_refused(reason: SealBroken, request_id: str | None) -> Response:
    return problem_response(
        status=403,
        type="lab-grant-refused",
        title="Forbidden",
        detail=f"this lab sign-in link does not hold ({reason}): open the lab again from the dashboard",
        request_id=request_id,
    )


def not_on_this_host(path: str, request_id: str | None) -> Response:
    return problem_response(
        status=404,
        type="not-found",
        title="Not found",
        detail=f"nothing is served at {path!r} on this host: a lab's host serves that lab's own paths only",
        request_id=request_id,
    )


def dot_segments(path: str, request_id: str | None) -> Response:
    return problem_response(
        status=400,
        type="invalid-lab-path",
        title="Bad request",
        detail=f"the lab path {path!r} has a '.' or '..' segment (perhaps percent-encoded): ask for the "
        "path without it",
        request_id=request_id,
        extra={"field": "path"},
    )


def sandboxed(send: Send) -> Send:
    """`send`, with every answer marked for an opaque origin: a lab's answer on the dashboard's origin
    (to a bearer caller) must never run as the dashboard if a browser renders it. A second
    Content-Security-Policy header adds to whatever policy the lab sent; it cannot loosen it."""

    async def sandboxed(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers") or [])
            headers.append((b"content-security-policy", SANDBOXED_POLICY.encode()))
            message = {**message, "headers": headers}
        await send(message)

    return sandboxed


async def sign_in(services: Services, access: LabAccess, scope: Scope, receive: Receive, send: Send) -> None:
    """`/_nufi/lab-signin?grant=...&next=...` on a lab's host: the grant, spent, becomes the lab cookie."""
    state = scope.get("state") or {}
    request_id = state.get("request_id") if isinstance(state.get("request_id"), str) else None
    headers = Headers(scope=scope)
    sessions, grants, origins = services.web_sessions, access.grants, access.origins
    if sessions is None or grants is None or origins is None:
        await not_on_this_host(scope["path"], request_id)(scope, receive, send)
        return
    raw_query = scope.get("query_string") or b""
    grant, next_path = sign_in_request(raw_query.decode("latin-1"))
    response: Response
    try:
        lab = grants.redeem(grant)
        if not origins.serves(headers.get("host", ""), lab.project, lab.name):
            raise SealBroken("it is for another lab")
        principal = await sessions.resolve(lab.session_id)
        if principal is None:
            raise SealBroken("the dashboard session it came from has ended")
        await services.labs.route(principal, lab.project, lab.name)
        response = signed_in(next_for(lab, next_path), access.set_cookie(lab))
    except SealBroken as exc:
        response = grant_refused(exc, request_id)
    except NufiError as exc:
        response = nufi_error_response(exc, request_id)
    await response(scope, receive, send)
