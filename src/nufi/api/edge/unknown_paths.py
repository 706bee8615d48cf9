"""`/api/...` paths no route serves are answered by the API, whatever serves `/` behind it.

The dashboard is mounted at `/` and catches every path routed after it, so without this an unknown
API path, or a known one asked with a method it does not serve, would get the dashboard's HTML page.
A program calling the API must get a problem body instead: 404 for a path nothing serves, 405 with
`Allow` for a path served under other methods.
"""

from __future__ import annotations

from fastapi import FastAPI, Request, Response
from starlette.routing import BaseRoute, Mount, Route

from nufi.api.problems import allowed_methods, problem_response, request_id_of

API_ROOT = "/api"
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]


def install_unknown_api_paths(app: FastAPI) -> None:
    """Add the catch-all for `/api` and `/api/...`; call it after every API route is included and
    before anything is mounted at `/`."""
    for path in (API_ROOT, API_ROOT + "/{rest:path}"):
        app.add_api_route(
            path, _unknown, methods=_ALL_METHODS, include_in_schema=False, name="unknown_api_path"
        )


async def _unknown(request: Request) -> Response:
    allowed = allowed_methods(_served_routes(request.app.router.routes), request.scope)
    request_id = request_id_of(request)
    path = request.url.path
    if allowed:
        return problem_response(
            status=405,
            type="method-not-allowed",
            code="http.method_not_allowed",
            params={"method": request.method, "path": path},
            request_id=request_id,
            headers={"Allow": ", ".join(allowed)},
        )
    return problem_response(
        status=404,
        type="not-found",
        code="http.not_found",
        params={"method": request.method, "path": path},
        request_id=request_id,
    )


def _served_routes(routes: list[BaseRoute]) -> list[BaseRoute]:
    # Neither this catch-all nor a mount (which matches every path under it) serves a path.
    return [
        route
        for route in routes
        if not isinstance(route, Mount) and not (isinstance(route, Route) and route.endpoint is _unknown)
    ]
