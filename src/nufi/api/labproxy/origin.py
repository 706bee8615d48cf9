"""The lab proxy's side of "every lab on an origin of its own" (nufi.workloads.labs.origin).

On the dashboard's origin a browser signed in to the dashboard is never served a lab: opening
`/labs/<p>/<n>/...` there, it is checked (a member or an admin) and sent through the lab sign-in
(nufi.api.labproxy.signin), which ends with a host-only lab cookie on the lab's own host. On a lab's host
only that lab's paths are served, only the lab cookie (never the dashboard's) or a bearer token is
accepted, and a cookie caller's WebSocket handshake or state-changing request must come from the
lab's own origin.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlencode

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import RedirectResponse, Response
from starlette.types import Message, Send

from nufi.api.problems import ProblemKind
from nufi.auth.lab_grants import LabGrants, LabPass
from nufi.auth.web_login import safe_next
from nufi.auth.web_tokens import SealBroken
from nufi.config import Settings
from nufi.workloads.labs.origin import LabOrigins

SIGN_IN_PATH = "/_nufi/lab-signin"
# Over https the cookie takes the `__Host-` prefix: a browser then refuses it unless it is Secure,
# host-only and for every path, so no sibling lab (whose host shares the parent domain) can plant one.
LAB_COOKIE = "nufi_lab"
SECURE_LAB_COOKIE = "__Host-nufi_lab"
# The browser's lab sign-in state (nufi.auth.lab_grants): set by the lab's host, good for one sign-in.
STATE_COOKIE = "nufi_lab_state"
SECURE_STATE_COOKIE = "__Host-nufi_lab_state"
STATE_SECONDS = 300
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The policy every lab answer carries on the dashboard's origin (bearer callers only: scripts, tests):
# a browser that ever renders one does so in an opaque origin, with no access to NuFi's.
SANDBOXED_POLICY = "sandbox; frame-ancestors 'none'"
_MAX_COOKIE_LENGTH = 4096


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

    @property
    def state_cookie_name(self) -> str:
        return SECURE_STATE_COOKIE if self.origins is not None and self.origins.secure else STATE_COOKIE

    def lab_cookie(self, headers: Headers) -> str | None:
        return self._cookie(headers, self.cookie_name)

    def state_cookie(self, headers: Headers) -> str | None:
        return self._cookie(headers, self.state_cookie_name)

    def sign_in_url(self, origin: str, **query: str) -> str:
        """`<lab origin>/_nufi/lab-signin?...`."""
        return f"{origin}{SIGN_IN_PATH}?{urlencode(query)}"

    def set_cookie(self, lab: LabPass) -> str:
        assert self.grants is not None
        return self._set(self.cookie_name, self.grants.cookie(lab), "")

    def set_state_cookie(self, state: str) -> str:
        return self._set(self.state_cookie_name, state, f"; Max-Age={STATE_SECONDS}")

    def drop_state_cookie(self) -> str:
        return self._set(self.state_cookie_name, "", "; Max-Age=0")

    def _set(self, name: str, value: str, extra: str) -> str:
        secure = "; Secure" if self.origins is not None and self.origins.secure else ""
        return f"{name}={value}; Path=/; HttpOnly; SameSite=Lax{secure}{extra}"

    @staticmethod
    def _cookie(headers: Headers, name: str) -> str | None:
        value = cookie_parser(headers.get("cookie", "")).get(name)
        return value if value and len(value) <= _MAX_COOKIE_LENGTH else None


def own_origin(headers: Headers, expected: str) -> bool:
    """Whether the request's `Origin` is exactly the lab's (a missing one is not)."""
    return headers.get("origin", "").rstrip("/").lower() == expected.lower()


def next_for(lab: LabPass, candidate: str) -> str:
    """Where the lab sign-in sends the browser: `candidate` when it is a path of that lab, else the
    lab's top."""
    safe = safe_next(candidate)
    prefixes = (f"/labs/{lab.project}/{lab.name}/", f"/notebook/{lab.project}/{lab.name}/")
    return safe if safe.startswith(prefixes) else prefixes[0]


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


ORIGIN_UNSET = ProblemKind(403, "lab-origin-unset", "lab.origin_unset", "Forbidden")
ELSEWHERE = ProblemKind(403, "lab-on-its-own-origin", "lab.elsewhere", "Forbidden")
ORIGIN_REFUSED = ProblemKind(403, "origin-refused", "lab.origin_refused", "Forbidden")
GRANT_REFUSED = ProblemKind(403, "lab-grant-refused", "lab.grant_refused", "Forbidden")
NOT_ON_THIS_HOST = ProblemKind(404, "not-found", "lab.not_on_this_host")
DOT_SEGMENTS = ProblemKind(400, "invalid-lab-path", "lab.dot_segments", "Bad request")


def lab_origin_unset(request_id: str | None) -> Response:
    return ORIGIN_UNSET.response(request_id)


def lab_elsewhere(origin: str, request_id: str | None) -> Response:
    return ELSEWHERE.response(request_id, extra={"origin": origin})


def origin_refused(origin: str, request_id: str | None) -> Response:
    return ORIGIN_REFUSED.response(request_id, extra={"origin": origin})


def grant_refused(reason: SealBroken, request_id: str | None) -> Response:
    return GRANT_REFUSED.response(request_id, params={"reason": str(reason)})


def not_on_this_host(path: str, request_id: str | None) -> Response:
    return NOT_ON_THIS_HOST.response(request_id, params={"path": path})


def dot_segments(path: str, request_id: str | None) -> Response:
    return DOT_SEGMENTS.response(request_id, params={"path": path}, extra={"field": "path"})


def lab_redirect(location: str, status: int, *cookies: str) -> Response:
    """A redirect of the lab sign-in or the lab proxy, never cached (it may carry a grant, or set the
    lab's cookies), setting each of `cookies` (a whole Set-Cookie value)."""
    response = RedirectResponse(location, status_code=status, headers={"Cache-Control": "no-store"})
    for cookie in cookies:
        response.raw_headers.append((b"set-cookie", cookie.encode("latin-1")))
    return response


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
