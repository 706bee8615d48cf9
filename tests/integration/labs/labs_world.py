"""Shared by the labs tests: the dev cluster's nodes, NuFi served in memory with the dashboard's
sign-in, and helpers that make projects and labs through the API."""

from __future__ import annotations

import asyncio
import copy
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from pydantic import SecretStr

from nufi.api import create_app
from nufi.cluster.service_route import Upstream
from nufi.config import Settings
from nufi.ui import signin
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.asgi import serving
from support.lpu_type import LPU_LABELS, LPU_METRICS, LPU_RESOURCE_KEY
from support.nufi_app import bearer
from support.polling import until

LPU = LPU_RESOURCE_KEY
NODES = """\
nodes:
  - name: lpu-node-1
    capacity: {hyperaccel.ai/lpu: 4}
  - name: lpu-node-2
    capacity: {hyperaccel.ai/lpu: 2}
  - name: cpu-node-1
"""
SEED_LPU: dict[str, Any] = {
    "id": "lpu",
    "name": "HyperAccel LPU",
    "vendor": "HyperAccel",
    "resource_key": LPU,
    "labels": copy.deepcopy(LPU_LABELS),
    "metrics": copy.deepcopy(LPU_METRICS),
}
# The sandbox realm's dashboard client (packages/nufi-sandbox/.../realm.yaml).
DASHBOARD_CLIENT = "nufi-dashboard"
DASHBOARD_CLIENT_SECRET = "nufi-dashboard-dev-secret"
SESSION_SECRET = "labs-test-session-secret"


@dataclass(frozen=True)
class World:
    cluster: DevClusterProcess
    idp: IdentityProviderProcess
    admin_token: str
    user_token: str

    def settings(self, database_url: str, **values: Any) -> Settings:
        return Settings(
            kubeconfig=self.cluster.kubeconfig,
            database_url=SecretStr(database_url),
            oidc_issuer=self.idp.issuer,
            oidc_client_id=DASHBOARD_CLIENT,
            oidc_client_secret=SecretStr(DASHBOARD_CLIENT_SECRET),
            dashboard_session_secret=SecretStr(SESSION_SECRET),
            **values,
        )

    @property
    def admin(self) -> dict[str, str]:
        return bearer(self.admin_token)

    @property
    def user(self) -> dict[str, str]:
        return bearer(self.user_token)


def lab_app(settings: Settings) -> FastAPI:
    """NuFi with the dashboard's sign-in routes (the dashboard itself is not needed here)."""
    app = create_app(settings)
    app.include_router(signin.router)
    return app


@asynccontextmanager
async def running(settings: Settings, *, sock: socket.socket | None = None) -> AsyncIterator[str]:
    """NuFi served by uvicorn on a loopback port in this event loop, its lifespan included (WebSockets
    need a real server); yields its base URL. `sock`, bound already, serves when settings must name
    the port (the lab base domain)."""
    app = lab_app(settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, access_log=False, lifespan="on")
    )
    task = asyncio.create_task(server.serve(sockets=None if sock is None else [sock]))
    try:
        await until(lambda: _started(server, task), within=30, every=0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout=30)


async def _started(server: uvicorn.Server, task: asyncio.Task[None]) -> bool:
    if task.done():
        task.result()  # raises what stopped it
        raise AssertionError("NuFi stopped before it started serving")
    return server.started


def project_name() -> str:
    return f"p-{uuid.uuid4().hex[:8]}"


async def register_lpu(client: httpx.AsyncClient, world: World) -> None:
    # Forced: no exporter is scraped here, so the metric checks would fail; the type is still data.
    response = await client.post(
        "/api/v1/admin/devices", json=SEED_LPU, params={"force": "true"}, headers=world.admin
    )
    assert response.status_code in (201, 409), response.text


async def create_project(client: httpx.AsyncClient, world: World, name: str, members: list[str]) -> None:
    response = await client.post(
        "/api/v1/admin/projects", json={"name": name, "members": members}, headers=world.admin
    )
    assert response.status_code == 201, response.text


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
    app = lab_app(world.settings(f"sqlite+aiosqlite:///{db_dir / 'nufi.db'}"))
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
        self._client = httpx.AsyncClient(
            base_url=cluster.url, headers={"Authorization": "Bearer nufi-dev-token"}, timeout=10
        )

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
