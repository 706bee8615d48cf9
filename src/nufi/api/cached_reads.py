"""Reads answered from what is already at hand: a monitoring snapshot page whose caller's token was
verified before and whose page was rendered before for the same snapshot, query and audience.

Dashboards poll a type's page every few seconds, with the same token and the same query, and the page
changes once per refresh interval: most reads ask for bytes NuFi already has. This pure ASGI layer,
inside the request id, access log, metrics and security headers, answers those reads itself, without
routing, dependency injection or a model — and steps aside, to the route, at the first thing it does
not already know: no principal cached for the token (`TokenVerifier.cached`), a type not looked up
within the catalog recheck time or whose refresher would have to evaluate
(`MonitoringService.current_version`), a query the route has not answered for that audience
(`RenderedPages`), a body, two `Authorization` headers, or dependency overrides (tests). When the
type was evaluated again since its page was kept, the first reader cuts and renders it again here,
without awaiting anything, so the readers in flight never all take the route at once. The route
answers exactly the same bytes, so whichever answers, the reader cannot tell.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from nufi.api import monitoring
from nufi.api.snapshot_pages import PageKey, RenderedPages
from nufi.auth import bearer_token
from nufi.errors import NufiError
from nufi.monitoring.snapshots.paging import PageQuery, parse_page_query
from nufi.services import Services

SNAPSHOT_PREFIX = "/api/v1/monitoring/"
# The route these reads stand in for: its template labels them in the metrics and the access log.
SNAPSHOT_ROUTE: BaseRoute = next(
    route for route in monitoring.router.routes if getattr(route, "endpoint", None) is monitoring.snapshot
)
# Paths under the prefix that are routes of their own, not a type's snapshot.
_NOT_A_TYPE = frozenset({"overview"})


class CachedReadsMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].startswith(SNAPSHOT_PREFIX):
            response = await self._answer(scope)
            if response is not None:
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _answer(self, scope: Scope) -> Response | None:
        type_id = scope["path"][len(SNAPSHOT_PREFIX) :]
        if not type_id or "/" in type_id or type_id in _NOT_A_TYPE:
            return None
        app = scope.get("app")
        state = getattr(app, "state", None)
        services = getattr(state, "services", None)
        pages = getattr(state, "snapshot_pages", None)
        if not isinstance(services, Services) or not isinstance(pages, RenderedPages):
            return None
        if services.verifier is None or getattr(app, "dependency_overrides", None):
            return None
        headers = _headers(scope)
        if headers is None:
            return None
        authorization, if_none_match = headers
        try:
            token = bearer_token(authorization)
        except NufiError:
            return None
        principal = services.verifier.cached(token)
        if principal is None:
            return None
        service = services.monitoring
        audience = await service.audience(principal)
        # Nothing is awaited from here on: the version stays the one the page is cut from.
        version = service.current_version(principal, type_id)
        if version is None:
            return None
        key: PageKey = (type_id, scope["query_string"], audience)
        page = pages.get(key, version)
        if page is None:
            # A new evaluation: the first reader renders the page again, here, so the readers in
            # flight do not all go through the route at once. Only a query the route has answered
            # (a page is kept for it) is cut here, parsed as the route parses it.
            query = _page_query(scope["query_string"]) if key in pages else None
            read = None if query is None else service.read_page_now(version, query, audience)
            if read is None:
                return None
            page = pages.of(key, read)
        pages.direct += 1
        scope["route"] = SNAPSHOT_ROUTE
        return page.response(if_none_match, service.age_of(page.snapshot_time))


def _page_query(query_string: bytes) -> PageQuery | None:
    # The last of repeated parameters counts, as in the route's own parsing (Starlette's QueryParams).
    values = dict(parse_qsl(query_string.decode("latin-1"), keep_blank_values=True))
    try:
        return parse_page_query(
            node=values.get("node"),
            limit=values.get("limit"),
            continue_token=values.get("continue"),
            sort=values.get("sort"),
            order=values.get("order"),
        )
    except NufiError:
        return None


def _headers(scope: Scope) -> tuple[str, list[str]] | None:
    """The one `Authorization` header and every `If-None-Match`; None when the request is not a plain
    read with one bearer token (no body)."""
    authorization: str | None = None
    if_none_match: list[str] = []
    for name, value in scope["headers"]:
        if name == b"authorization":
            if authorization is not None:
                return None
            authorization = value.decode("latin-1")
        elif name == b"if-none-match":
            if_none_match.append(value.decode("latin-1"))
        elif name == b"transfer-encoding" or (name == b"content-length" and value.strip() != b"0"):
            return None
    return None if authorization is None else (authorization, if_none_match)
