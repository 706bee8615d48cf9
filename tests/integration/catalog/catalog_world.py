"""Shared by the catalog API tests: the world's constants and NuFi served in memory."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI
from pydantic import SecretStr

from nufi.api import create_app
from nufi.config import Settings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.asgi import serving
from support.lpu_type import LPU_LABELS, LPU_METRICS, LPU_RESOURCE_KEY

LPU = LPU_RESOURCE_KEY
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


@asynccontextmanager
async def serve(settings: Settings, app: FastAPI | None = None) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi in memory with its lifespan: the same app a replica runs, without a socket."""
    async with serving(app or create_app(settings), client_timeout=30) as client:
        yield client
