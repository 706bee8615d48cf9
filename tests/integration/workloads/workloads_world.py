"""Shared by the workloads tests: the dev cluster's nodes, NuFi served in memory, and helpers that
make projects and deployments through the API."""

from __future__ import annotations

import copy
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import SecretStr

from nufi.api import create_app
from nufi.config import Settings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.asgi import serving
from support.lpu_type import LPU_LABELS, LPU_METRICS, LPU_RESOURCE_KEY
from support.nufi_app import bearer

LPU = LPU_RESOURCE_KEY
# Six and four LPUs: a pod may ask for five (lpu-node-1 can give that) and still wait when others
# hold some of them.
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
SEED_LPU: dict[str, Any] = {
    "id": "lpu",
    "name": "HyperAccel LPU",
    "vendor": "HyperAccel",
    "resource_key": LPU,
    "labels": copy.deepcopy(LPU_LABELS),
    "metrics": copy.deepcopy(LPU_METRICS),
}


@dataclass(frozen=True)
class World:
    cluster: DevClusterProcess
    idp: IdentityProviderProcess
    prometheus: PrometheusServer
    admin_token: str
    user_token: str

    def settings(self, database_url: str) -> Settings:
        return Settings(
            kubeconfig=self.cluster.kubeconfig,
            prometheus_url=self.prometheus.url,
            database_url=SecretStr(database_url),
            oidc_issuer=self.idp.issuer,
        )

    @property
    def admin(self) -> dict[str, str]:
        return bearer(self.admin_token)

    @property
    def user(self) -> dict[str, str]:
        return bearer(self.user_token)


@asynccontextmanager
async def serve(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(create_app(settings), client_timeout=30) as client:
        yield client


async def names_in(kube: httpx.AsyncClient, path: str) -> list[str]:
    """The names of the objects a cluster list `path` holds, sorted; none when the list is not there."""
    answer = await kube.get(path)
    if answer.status_code == 404:
        return []
    answer.raise_for_status()
    return sorted(item["metadata"]["name"] for item in answer.json()["items"])


def project_name() -> str:
    return f"p-{uuid.uuid4().hex[:8]}"


async def register_lpu(client: httpx.AsyncClient, world: World) -> None:
    # Forced: no exporter is scraped here, so the metric checks would fail; the type is still data.
    response = await client.post(
        "/api/v1/admin/devices", json=SEED_LPU, params={"force": "true"}, headers=world.admin
    )
    assert response.status_code == 201, response.text


async def create_project(client: httpx.AsyncClient, world: World, name: str, members: list[str]) -> None:
    response = await client.post(
        "/api/v1/admin/projects", json={"name": name, "members": members}, headers=world.admin
    )
    assert response.status_code == 201, response.text


def deployment_body(name: str = "llm", **changes: Any) -> dict[str, Any]:
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
