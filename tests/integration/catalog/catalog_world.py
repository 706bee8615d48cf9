"""Shared by the catalog API tests: the world's constants, NuFi served in memory, bearer headers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from pydantic import SecretStr

from nufi.api import create_app
from nufi.config import Settings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer

LPU = "hyperaccel.ai/lpu"
NODES = """\
nodes:
  - name: lpu-node-1
    capacity: {hyperaccel.ai/lpu: 4}
  - name: lpu-node-2
    capacity: {hyperaccel.ai/lpu: 4}
  - name: gpu-node-1
    capacity: {nvidia.com/gpu: 8}
  - name: cpu-node-1
"""
SEED_LPU = {
    "id": "lpu",
    "name": "HyperAccel LPU",
    "vendor": "HyperAccel",
    "resource_key": LPU,
    "labels": {"node": "node", "device": "device", "pod": "pod", "namespace": "namespace"},
    "metrics": {
        "utilization": "lpu_utilization_percent",
        "memory": {
            "mode": "used_total",
            "used": "lpu_memory_used_bytes",
            "total": "lpu_memory_total_bytes",
            "unit": "bytes",
        },
        "temperature": "lpu_temperature_celsius",
        "power": None,
    },
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


@asynccontextmanager
async def serve(settings: Settings, app: FastAPI | None = None) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi in memory with its lifespan: the same app a replica runs, without a socket."""
    app = app or create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://nufi.test", timeout=30) as client:
            yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
