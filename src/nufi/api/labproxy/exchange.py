"""One caller's exchange with a lab through the proxy, before HTTP and WebSocket part ways: who the
caller is (bearer token, else the cookie that counts on this origin), whether they may go on from
here, which lab route (remembered briefly in the RouteCache) and which upstream path they ask for.
`nufi.api.labproxy.proxy` runs the HTTP and WebSocket exchanges over this."""

from __future__ import annotations

from urllib.parse import quote

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from nufi.api.labproxy import origin
from nufi.api.labproxy.forward import SESSION_COOKIE, Target
from nufi.api.labproxy.origin import LabAccess
from nufi.api.labproxy.paths import LabPath, RouteCache
from nufi.api.problems import request_id_in
from nufi.auth import Principal, authenticate
from nufi.auth.web_tokens import SealBroken
from nufi.services import Services
from nufi.workloads.labs.model import LabRoute

# Far above the 43 characters NuFi's session ids have.
_MAX_SESSION_ID_LENGTH = 256


class Exchange:
    def __init__(
        self,
        services: Services,
        routes: RouteCache,
        access: LabAccess,
        lab_path: LabPath,
        scope: Scope,
        receive: Receive,
        send: Send,
        *,
        lab_host: bool = False,
    ):
        self.services = services
        self.routes = routes
        self.access = access
        self.lab_path = lab_path
        self.lab_host = lab_host
        self.scope = scope
        self.receive = receive
        self.send = send
        self.headers = Headers(scope=scope)
        self.request_id = request_id_in(scope)

    async def caller(self) -> tuple[Principal | None, bool]:
        """The caller by bearer token, else by cookie (on a lab's host the lab cookie, elsewhere the
        dashboard's session), and whether a cookie it was; None when anonymous. A token that does not
        hold up is an error (401), not anonymity."""
        values = self.headers.getlist("authorization")
        if values:
            return await authenticate(self.services.verifier, values), False
        sessions = self.services.web_sessions
        if sessions is None:
            return None, False
        principal = None
        if self.lab_host:
            id_hash = self.cookie_session()
            if id_hash is not None:
                principal = await sessions.resolve_by_hash(id_hash)
        else:
            session_id = cookie_parser(self.headers.get("cookie", "")).get(SESSION_COOKIE)
            if session_id and len(session_id) <= _MAX_SESSION_ID_LENGTH:
                principal = await sessions.resolve(session_id)
        return principal, principal is not None

    def cookie_session(self) -> str | None:
        """The dashboard session (its id's hash) the lab cookie was given for, when it is this lab's."""
        sealed = self.access.lab_cookie(self.headers)
        if sealed is None or self.access.grants is None:
            return None
        try:
            lab = self.access.grants.open_cookie(sealed)
        except SealBroken:
            return None
        if (lab.project, lab.name) != (self.lab_path.project, self.lab_path.name):
            return None
        return lab.session_hash

    def own_origin(self) -> str:
        assert self.access.origins is not None
        return self.access.origins.origin(self.lab_path.project, self.lab_path.name)

    def refusal(self, by_cookie: bool, *, changes: bool) -> Response | None:
        """Why a caller signed in by a cookie may not go on (None: it may): on the dashboard's origin
        it only opens labs in the browser, on the lab's host it changes things (or opens a WebSocket)
        only from the lab's own origin."""
        if not by_cookie:
            return None
        if self.access.origins is None or self.access.grants is None:
            return origin.lab_origin_unset(self.request_id)
        if not self.lab_host:
            return origin.lab_elsewhere(self.own_origin(), self.request_id)
        if changes and not origin.own_origin(self.headers, self.own_origin()):
            return origin.origin_refused(self.own_origin(), self.request_id)
        return None

    def dot_segments(self) -> Response | None:
        raw = self.scope.get("raw_path")
        text = raw.decode("latin-1").split("?", 1)[0] if isinstance(raw, bytes) else self.scope["path"]
        if origin.has_dot_segment(text) or origin.has_dot_segment(self.scope["path"]):
            return origin.dot_segments(self.scope["path"], self.request_id)
        return None

    async def route(self, principal: Principal) -> LabRoute:
        key = RouteCache.key(principal, self.lab_path.project, self.lab_path.name)
        route = self.routes.get(key)
        if route is None:
            route = await self.services.labs.route(principal, self.lab_path.project, self.lab_path.name)
            self.routes.put(key, route)
        return route

    async def target(self, route: LabRoute) -> Target:
        """Where the lab serves this request: whichever path family it came on, the lab's own path."""
        upstream = await self.services.lab_upstreams.route.upstream(
            route.namespace, route.service, route.port
        )
        return Target(
            upstream=upstream,
            path=self.upstream_path(route),
            query=self.query(),
            prefix=route.prefix,
            serves_prefix=route.serves_prefix,
        )

    def upstream_path(self, route: LabRoute) -> str:
        """The path the lab is asked for, percent-encoded as the caller sent it."""
        rest = self._raw_rest()
        if route.serves_prefix:
            return route.prefix + rest.lstrip("/")
        return "/" + rest.lstrip("/")

    def query(self) -> str:
        raw = self.scope.get("query_string") or b""
        return raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)

    def _raw_rest(self) -> str:
        raw = self.scope.get("raw_path")
        mount = f"/{self.lab_path.family}/{self.lab_path.project}/{self.lab_path.name}"
        if isinstance(raw, bytes):
            text = raw.decode("latin-1").split("?", 1)[0]
            if text.startswith(mount):
                return text[len(mount) :]
        return quote(self.lab_path.rest, safe="/:@!$&'()*+,;=-._~%")
