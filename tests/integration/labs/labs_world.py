"""Shared by the labs tests: NuFi over the integration world (`support.world`) with the dashboard's
sign-in, served in memory or on loopback, and helpers that make labs through the API and read the
cluster's objects."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from pydantic import SecretStr

from nufi.api import create_app
from nufi.cluster.service_route import Upstream
from nufi.config import Settings
from nufi.ui import signin
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.asgi import serving
from support.dev_cluster import DEV_HEADERS
from support.world import World
from support.world import running as running_app

# The sandbox realm's dashboard client (packages/nufi-sandbox/.../realm.yaml).
DASHBOARD_CLIENT = "nufi-dashboard"
DASHBOARD_CLIENT_SECRET = "nufi-dashboard-dev-secret"
SESSION_SECRET = "labs-test-session-secret"


def lab_settings(world: World, database_url: str, **values: Any) -> Settings:
    """NuFi's settings over the world, with the dashboard's sign-in (the lab proxy takes its session)."""
    return world.settings(
        database_url,
        oidc_client_id=DASHBOARD_CLIENT,
        oidc_client_secret=SecretStr(DASHBOARD_CLIENT_SECRET),
        dashboard_session_secret=SecretStr(SESSION_SECRET),
        **values,
    )


def lab_app(settings: Settings) -> FastAPI:
    """NuFi with the dashboard's sign-in routes (the dashboard itself is not needed here)."""
    app = create_app(settings)
    app.include_router(signin.router)
    return app


@asynccontextmanager
async def running(settings: Settings, *, sock: socket.socket | None = None) -> AsyncIterator[str]:
    """`lab_app` served by uvicorn on a loopback port (WebSockets need a real server); its base URL."""
    async with running_app(lab_app(settings), sock=sock) as url:
        yield url


async def make_lab(
    nufi: httpx.AsyncClient, world: World, project: str, name: str = "lab", **changes: Any
) -> None:
    """Make lab `name` in `project` as `user` (a `lab_body` with `changes`)."""
    response = await nufi.post(
        f"/api/v1/projects/{project}/labs", json=lab_body(name, **changes), headers=world.user
    )
    assert response.status_code == 201, response.text


class ApiServerLikeRoute:
    """A ServiceRoute that reaches the stand-in lab under the services proxy's path, as the API server
    would serve it: what the proxy must undo of the API server's rewriting is then visible."""

    name = "service-proxy"

    def __init__(self, base_url: str) -> None:
        self._base_url = base_url

    async def upstream(self, namespace: str, service: str, port: int) -> Upstream:
        path = f"/api/v1/namespaces/{namespace}/services/{service}:{port}/proxy"
        return Upstream(base_url=self._base_url + path, rewritten_prefix=path)


@asynccontextmanager
async def behind_services_proxy(
    world: World, lab_server: str, db_dir: Path, *, client_timeout: float
) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi served in memory, reaching the stand-in lab `lab_server` the way the API server's services
    proxy would (`ApiServerLikeRoute`): a client of it."""
    app = lab_app(lab_settings(world, f"sqlite+aiosqlite:///{db_dir / 'nufi.db'}"))
    async with serving(app, client_timeout=client_timeout) as client:
        app.state.services.lab_upstreams.route = ApiServerLikeRoute(lab_server)
        yield client


def lab_body(name: str = "lab", **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "kind": "jupyter",
        "accelerator": {"device_type": "lpu", "count": 1},
        "storage_gib": 5,
    }
    body.update(changes)
    return body


class Kube:
    """The dev cluster's REST API read as plain JSON, the way kubectl's `-o json` shows objects."""

    def __init__(self, cluster: DevClusterProcess) -> None:
        self._client = httpx.AsyncClient(base_url=cluster.url, headers=DEV_HEADERS, timeout=10)

    async def get(self, path: str) -> dict[str, Any] | None:
        response = await self._client.get(path)
        if response.status_code == 404:
            return None
        response.raise_for_status()
        found: dict[str, Any] = response.json()
        return found

    async def names(self, path: str) -> list[str]:
        listed = await self.get(path)
        return sorted(item["metadata"]["name"] for item in (listed or {}).get("items", []))

    async def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = await self._client.post(path, json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    async def delete(self, path: str) -> None:
        response = await self._client.delete(path)
        assert response.status_code in (200, 202, 404), response.text

    async def close(self) -> None:
        await self._client.aclose()
