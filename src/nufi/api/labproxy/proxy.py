"""The lab proxy: `/labs/<project>/<name>/...` (and `/notebook/<namespace>/<name>/...`, where Kubeflow
Notebooks serve) passed to the lab's Service, HTTP and WebSocket alike.

Only the project's members and admins get through. Browsers open a lab on its own origin
(nufi.api.labproxy.origin): the dashboard's session cookie (`nufi_session`) on the dashboard's origin only
earns a redirect there, with a grant for that one lab, and on the lab's host only the lab cookie that
grant is exchanged for counts. A bearer token (`Authorization`, checked by the API's TokenVerifier)
is accepted on either, and on the dashboard's origin what the lab answers is sandboxed. An
anonymous browser asking for a page is sent to sign in and back; any other anonymous call is 401, a
non-member 403, both problem+json. A lab NuFi runs as a StatefulSet serves at `/labs/...`; a
Kubeflow Notebook serves at `/notebook/<namespace>/<name>/` (its controller's NB_PREFIX), and
`/labs/<project>/<name>/...` redirects there.

It is a pure ASGI middleware, installed by `nufi.api.create_app` inside the request-id and access
log middleware and outside the request guard: a lab's uploads stream through without the API's body
limit, and it exists wherever the API or the dashboard is served. Here: which host and path a request
is for, and the HTTP and WebSocket exchanges; what both ask of a caller is `nufi.api.labproxy.exchange`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import aiohttp
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nufi.api.labproxy import origin, signin
from nufi.api.labproxy.exchange import Exchange
from nufi.api.labproxy.forward import forward_http, forward_websocket
from nufi.api.labproxy.origin import SAFE_METHODS, SIGN_IN_PATH, LabAccess
from nufi.api.labproxy.paths import (
    LAB_PREFIXES,
    LOGIN_PATH,
    ROUTE_TEMPLATE,
    LabPath,
    RouteCache,
    lab_refused_socket,
    lab_unreachable,
    match_lab_path,
    no_such_lab_path,
)
from nufi.api.problems import nufi_error_response
from nufi.auth import Principal
from nufi.auth.web_login import safe_next
from nufi.errors import DependencyUnavailable, NufiError, Unauthorized
from nufi.services import Services
from nufi.workloads.labs.model import LabRoute

__all__ = ["LOGIN_PATH", "ROUTE_TEMPLATE", "LabPath", "LabProxyMiddleware", "RouteCache", "match_lab_path"]


@dataclass(frozen=True)
class _Route:
    """Stands for a route in the request's scope, so metrics and the access log name the proxy."""

    path: str = ROUTE_TEMPLATE


class LabProxyMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.routes = RouteCache()
        self._access: tuple[Services, LabAccess] | None = None

    def access(self, services: Services) -> LabAccess:
        if self._access is None or self._access[0] is not services:
            self._access = (services, LabAccess.from_settings(services.settings))
        return self._access[1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        lab_path = match_lab_path(scope["path"])
        services = getattr(getattr(scope.get("app"), "state", None), "services", None)
        if isinstance(services, Services):
            access = self.access(services)
            if access.on_lab_host(Headers(scope=scope)):
                # A lab's host is the lab proxy's alone: nothing on it ever reaches the dashboard.
                await self._on_lab_host(services, access, lab_path, scope, receive, send)
                return
            if scope["type"] == "http" and scope["path"] == signin.GRANT_PATH:
                await signin.grant(services, access, scope, receive, send)
                return
        if lab_path is None and scope["type"] == "http" and scope["path"].startswith(LAB_PREFIXES):
            # The lab paths are the proxy's: one no lab can have is a 404 problem here, not the
            # dashboard's page for an unknown URL.
            await no_such_lab_path(scope["path"])(scope, receive, send)
            return
        if lab_path is None or not isinstance(services, Services):
            await self.app(scope, receive, send)
            return
        scope["route"] = _Route()
        access = self.access(services)
        if scope["type"] == "http":
            await _HttpExchange(services, self.routes, access, lab_path, scope, receive, send).run()
        else:
            await _WebSocketExchange(services, self.routes, access, lab_path, scope, receive, send).run()

    async def _on_lab_host(
        self,
        services: Services,
        access: LabAccess,
        lab_path: LabPath | None,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        headers = Headers(scope=scope)
        origins = access.origins
        assert origins is not None
        if scope["type"] == "http" and scope["path"] == SIGN_IN_PATH:
            await signin.at_lab_host(services, access, scope, receive, send)
            return
        if lab_path is None or not origins.serves(headers.get("host", ""), lab_path.project, lab_path.name):
            if scope["type"] == "http":
                await origin.not_on_this_host(scope["path"], None)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        scope["route"] = _Route()
        if scope["type"] == "http":
            exchange: _HttpExchange | _WebSocketExchange = _HttpExchange(
                services, self.routes, access, lab_path, scope, receive, send, lab_host=True
            )
        else:
            exchange = _WebSocketExchange(
                services, self.routes, access, lab_path, scope, receive, send, lab_host=True
            )
        await exchange.run()


class _HttpExchange(Exchange):
    async def run(self) -> None:
        if not self.lab_host:
            self.send = origin.sandboxed(self.send)
        lab_path = self.lab_path
        refused = self.dot_segments()
        if refused is not None:
            await refused(self.scope, self.receive, self.send)
            return
        if not lab_path.rest:
            await self._redirect(lab_path.prefix, status=307)
            return
        try:
            principal, by_cookie = await self.caller()
            if principal is None:
                await self._anonymous()
                return
            changes = self.scope["method"] not in SAFE_METHODS
            refused = self.refusal(by_cookie, changes=changes)
            if refused is not None and not (self._opens_lab_elsewhere(by_cookie) and self._browser_page()):
                await refused(self.scope, self.receive, self.send)
                return
            route = await self.route(principal)
        except NufiError as exc:
            await nufi_error_response(exc, self.request_id)(self.scope, self.receive, self.send)
            return
        if by_cookie and not self.lab_host:
            # Checked a member: off to the lab sign-in (nufi.api.labproxy.signin) on the lab's own origin.
            await self._to_lab_origin(route.prefix)
            return
        if route.prefix != lab_path.prefix:
            # A Notebook serves at its controller's path; a StatefulSet lab at NuFi's.
            await self._redirect(route.prefix + self._raw_rest().lstrip("/"), status=307)
            return
        await self._forward(route)

    async def _forward(self, route: LabRoute) -> None:
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await self.send(message)

        try:
            target = await self.target(route)
            await forward_http(
                self.services.lab_upstreams.session(), target, self.scope, self.receive, watched
            )
        except NufiError as exc:
            if started:
                raise
            await nufi_error_response(exc, self.request_id)(self.scope, self.receive, self.send)
        except (aiohttp.ClientError, TimeoutError) as exc:
            if started:
                # Headers are out; the only honest signal left is a broken connection.
                raise
            await lab_unreachable(route, exc, self.request_id)(self.scope, self.receive, self.send)

    def _browser_page(self) -> bool:
        accept = self.headers.get("accept", "")
        return self.scope["method"] in ("GET", "HEAD") and "text/html" in accept

    def _opens_lab_elsewhere(self, by_cookie: bool) -> bool:
        """A dashboard-signed-in browser on the dashboard's origin, sent on to the lab's own."""
        return (
            by_cookie
            and not self.lab_host
            and self.access.origins is not None
            and self.access.grants is not None
        )

    async def _anonymous(self) -> None:
        if self._browser_page() and self.services.web_sessions is not None:
            if not self.lab_host:
                await self._redirect(_sign_in_url(self._here()), status=302)
                return
            if self.access.dashboard_url is not None:
                # The lab sign-in (nufi.api.labproxy.signin) goes by the dashboard and comes back here.
                location = self.access.sign_in_url("", next=self._here())
                await origin.lab_redirect(location, 302)(self.scope, self.receive, self.send)
                return
        raise Unauthorized(code="lab.sign_in")

    async def _to_lab_origin(self, prefix: str) -> None:
        here = prefix.rstrip("/") + self._raw_rest()
        query = self.query()
        # The dashboard's own address, for the lab's host to send the browser back to: the configured
        # one, or (on loopback, where it may be unset) the one this request came to.
        dashboard = self.access.dashboard_url or f"{_scheme(self.scope)}://{self.headers.get('host', '')}"
        location = signin.first_step(
            self.access, self.lab_path, here + (f"?{query}" if query else ""), dashboard
        )
        await origin.lab_redirect(location, 302)(self.scope, self.receive, self.send)

    def _here(self) -> str:
        mount = f"/{self.lab_path.family}/{self.lab_path.project}/{self.lab_path.name}"
        query = self.query()
        return mount + self._raw_rest() + (f"?{query}" if query else "")

    async def _redirect(self, location: str, *, status: int) -> None:
        """Send the caller to `location` (a path, percent-encoded), with the request's query when
        `location` has none of its own."""
        query = self.query()
        if query and "?" not in location:
            location += f"?{query}"
        await origin.lab_redirect(location, status)(self.scope, self.receive, self.send)


class _WebSocketExchange(Exchange):
    async def run(self) -> None:
        connect = await self.receive()
        if connect["type"] != "websocket.connect":
            return
        refused = self.dot_segments()
        if refused is not None:
            await self._deny(refused)
            return
        try:
            principal, by_cookie = await self.caller()
            if principal is None:
                raise Unauthorized(code="lab.sign_in")
            # A browser always sends Origin with a handshake: one signed in by cookie must come from
            # the lab's own page, never another lab's or site's (cross-site WebSocket hijacking).
            refused = self.refusal(by_cookie, changes=True)
            if refused is not None:
                await self._deny(refused)
                return
            route = await self.route(principal)
            target = await self.target(route)
        except NufiError as exc:
            await self._deny(nufi_error_response(exc, self.request_id))
            return
        sockets = self.services.labs.sockets
        session = self.cookie_session() if by_cookie else None
        try:
            with sockets.opened(self.lab_path.project, self.lab_path.name, session) as held:
                await forward_websocket(
                    self.services.lab_upstreams.session(),
                    target,
                    self.scope,
                    self.receive,
                    self.send,
                    revoked=lambda: sockets.until_refused(held, lambda: self._still_allowed(principal)),
                )
        except aiohttp.WSServerHandshakeError as exc:
            # The lab answered and said no (Jupyter checks a socket's Origin too): pass that on.
            await self._deny(lab_refused_socket(route, exc.status, self.request_id))
        except (aiohttp.ClientError, TimeoutError) as exc:
            await self._deny(lab_unreachable(route, exc, self.request_id))

    async def _still_allowed(self, opened_by: Principal) -> bool:
        """Whether the socket's caller would still get it, asked as the handshake asked: same caller,
        still let into the lab. A dependency that cannot answer now is not a refusal: a Kubernetes
        or issuer outage does not cut every open terminal; the next check asks again."""
        try:
            principal, _ = await self.caller()
            if principal is None or principal.subject != opened_by.subject:
                return False
            await self.services.labs.route(principal, self.lab_path.project, self.lab_path.name)
        except DependencyUnavailable:
            return True
        except NufiError:
            return False
        return True

    async def _deny(self, response: Response) -> None:
        """Refuse the handshake with an HTTP answer where the server can send one, else a plain 403."""
        if "websocket.http.response" in (self.scope.get("extensions") or {}):
            headers = [(k.lower(), v) for k, v in response.raw_headers]
            await self.send(
                {"type": "websocket.http.response.start", "status": response.status_code, "headers": headers}
            )
            await self.send(
                {"type": "websocket.http.response.body", "body": response.body, "more_body": False}
            )
            return
        await self.send({"type": "websocket.close", "code": 1008})


def _sign_in_url(next_path: str) -> str:
    return f"{LOGIN_PATH}?{urlencode({'next': safe_next(next_path)})}"


def _scheme(scope: Scope) -> str:
    scheme = str(scope.get("scheme") or "http")
    return {"ws": "http", "wss": "https"}.get(scheme, scheme)
