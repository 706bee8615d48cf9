"""The discovery and OpenAPI endpoints: `/version`, `/api`, `/apis/...`, `/openapi/v3/...`.

The documents themselves are built from the registry by `discovery.py` and `openapi.py`; these
handlers answer them, or the API server's 404 for a group or version it does not serve.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.wire import discovery, openapi


def _found_or_404(found: dict[str, Any] | None) -> Response:
    if not found:
        return JSONResponse(errors.route_not_found().status(), status_code=404)
    return JSONResponse(found)


class DiscoveryEndpoints:
    def __init__(self, registry: ResourceRegistry, server_address: str) -> None:
        self._registry = registry
        self._server_address = server_address

    async def version(self, _: Request) -> Response:
        return JSONResponse(discovery.SERVER_VERSION)

    async def core(self, _: Request) -> Response:
        return JSONResponse(discovery.api_versions(self._server_address))

    async def groups(self, _: Request) -> Response:
        return JSONResponse(discovery.api_group_list(self._registry))

    async def group(self, request: Request) -> Response:
        return _found_or_404(discovery.api_group(self._registry, request.path_params["group"]))

    async def resources(self, request: Request) -> Response:
        group_name = request.path_params.get("group", "")
        return _found_or_404(
            discovery.resource_list(self._registry, group_name, request.path_params["version"])
        )

    async def openapi_index(self, _: Request) -> Response:
        return JSONResponse(openapi.index(self._registry))

    async def openapi_document(self, request: Request) -> Response:
        parts = request.path_params["gv"].strip("/").split("/")
        group, version = (parts[1], parts[2]) if parts[0] == "apis" and len(parts) == 3 else ("", parts[-1])
        return _found_or_404(openapi.document(self._registry, group, version))
