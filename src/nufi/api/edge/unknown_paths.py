"""`/api/...` paths no route serves are answered by the API, whatever serves `/` behind it.

The dashboard is mounted at `/` and catches every path routed after it, so without this an unknown
API path, or a known one asked with a method it does not serve, would get the dashboard's HTML page.
A program calling the API must get a problem body instead: 404 for a path nothing serves, 405 with
`Allow` for a path served under other methods.
"""

from __future__ import annotations

from fastapi import FastAPI, Request, Response
from starlette.routing import BaseRoute, Mount, Route

from nufi.api.problems import ProblemKind, allowed_methods, request_id_of

API_ROOT = "/api"
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]


def install_unknown_api_paths(app: FastAPI) -> None:
    """Add the catch-all for `/api` and `/api/...`; call it after every API route is included and
    before anything is mounted at `/`."""
    for path in (API_ROOT, API_ROOT + "/{rest:path}"):
        app.add_api_route(
            path, _unknown, methods=_ALL_METHODS, include_in_schema=False, name="unknown_api_path"
        )


_NOT_ALLOWED = ProblemKind(405, "method-not-allowed", "http.method_not_allowed")
_NOT_FOUND = ProblemKind(404, "not-found", "http.not_found")


async def _unknown(request: Request) -> Response:
    allowed = allowed_methods(_served_routes(request.app.router.routes), request.scope)
    params = {"method": request.method, "path": request.url.path}
    if allowed:
        return _NOT_ALLOWED.response(
            request_id_of(request), params=params, headers={"Allow": ", ".join(allowed)}
        )
    return _NOT_FOUND.response(request_id_of(request), params=params)


def _served_routes(routes: list[BaseRoute]) -> list[BaseRoute]:
    # Neither this catch-all nor a mount (which matches every path under it) serves a path.
    return [
        route
        for route in routes
        if not isinstance(route, Mount) and not (isinstance(route, Route) and route.endpoint is _unknown)
    ]
