"""The integration tests' world: the dev cluster with LPU nodes, the dev identity provider and the
run's Prometheus, with NuFi served over them, and the API calls every area makes to set a test up
(the LPU registered, a project with its members).

One node layout serves every area: six and four LPUs, so a pod may ask for five (only lpu-node-1 can
give that) and still wait when others hold some; a GPU node tainted as GPU operators do; a node with
no accelerator at all. The fixtures over it are in `support.world_fixtures`.
"""

from __future__ import annotations

import asyncio
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from pydantic import SecretStr

from nufi.api import create_app
from nufi.config import Settings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.asgi import serving
from support.lpu_type import LPU_RESOURCE_KEY, lpu_type
from support.nufi_app import bearer
from support.polling import until

LPU = LPU_RESOURCE_KEY
NODES = """\
nodes:
  - name: lpu-node-1
    capacity: {hyperaccel.ai/lpu: 6}
  - name: lpu-node-2
    capacity: {hyperaccel.ai/lpu: 4}
  - name: gpu-node-1
    taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    capacity: {nvidia.com/gpu: 8}
  - name: cpu-node-1
"""
LPU_NODES = ("lpu-node-1", "lpu-node-2")


@dataclass(frozen=True)
class World:
    """What NuFi is pointed at, and the tokens of its admin and of `user`, an ordinary user."""

    cluster: DevClusterProcess
    idp: IdentityProviderProcess
    prometheus: PrometheusServer
    admin_token: str
    user_token: str

    @classmethod
    def signed_in(
        cls, cluster: DevClusterProcess, idp: IdentityProviderProcess, prometheus: PrometheusServer
    ) -> World:
        return cls(
            cluster, idp, prometheus, idp.password_token("admin", "admin"), idp.password_token("user", "user")
        )

    def settings(self, database_url: str, **values: Any) -> Settings:
        return Settings(
            kubeconfig=self.cluster.kubeconfig,
            prometheus_url=self.prometheus.url,
            database_url=SecretStr(database_url),
            oidc_issuer=self.idp.issuer,
            **values,
        )

    @property
    def admin(self) -> dict[str, str]:
        return bearer(self.admin_token)

    @property
    def user(self) -> dict[str, str]:
        return bearer(self.user_token)


@asynccontextmanager
async def serve(settings: Settings, app: FastAPI | None = None) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi in memory with its lifespan: the same app a replica runs, without a socket."""
    async with serving(app or create_app(settings), client_timeout=30) as client:
        yield client


@asynccontextmanager
async def running(app: FastAPI, *, sock: socket.socket | None = None) -> AsyncIterator[str]:
    """`app` served by uvicorn on a loopback port in this event loop, its lifespan included (for what
    needs a real server: WebSockets, a browser, another process); yields its base URL. `sock`, bound
    already, serves when settings must name the port."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, access_log=False, lifespan="on")
    )
    task = asyncio.create_task(server.serve(sockets=None if sock is None else [sock]))
    try:
        await until(lambda: _started(server, task), within=60, every=0.05, what="NuFi serving")
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
        "/api/v1/admin/devices", json=lpu_type(), params={"force": "true"}, headers=world.admin
    )
    assert response.status_code == 201, response.text


async def create_project(client: httpx.AsyncClient, world: World, name: str, members: list[str]) -> None:
    response = await client.post(
        "/api/v1/admin/projects", json={"name": name, "members": members}, headers=world.admin
    )
    assert response.status_code == 201, response.text


def deployment_body(name: str = "llm", **changes: Any) -> dict[str, Any]:
    """A valid deployment of the mock inference image on one LPU per replica, with `changes`."""
    body: dict[str, Any] = {
        "name": name,
        "image": "nufi-mock:inference",
        "accelerator": {"device_type": "lpu", "count": 1},
        "replicas": 2,
        "port": 8000,
        "env": [{"name": "MODEL_NAME", "value": "tiny"}],
        "resources": {"cpu": "500m", "memory": "2Gi"},
    }
    body.update(changes)
    return body


async def names_in(kube: httpx.AsyncClient, path: str) -> list[str]:
    """The names of the objects a cluster list `path` holds, sorted; none when the list is not there."""
    answer = await kube.get(path)
    if answer.status_code == 404:
        return []
    answer.raise_for_status()
    return sorted(item["metadata"]["name"] for item in answer.json()["items"])
