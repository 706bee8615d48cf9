"""kubernetes-asyncio pointed at a kubeconfig, as NuFi's cluster gateway meets a cluster."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from kubernetes_asyncio import client, config


@asynccontextmanager
async def api_client(kubeconfig: Path) -> AsyncIterator[client.ApiClient]:
    cfg = client.Configuration()
    await config.load_kube_config(config_file=str(kubeconfig), client_configuration=cfg)
    async with client.ApiClient(cfg) as api:
        yield api


async def new_namespace(api: client.ApiClient, suffix_length: int = 8) -> str:
    """A namespace of its own for one test: `t-` and random hex digits."""
    name = f"t-{uuid.uuid4().hex[:suffix_length]}"
    await client.CoreV1Api(api).create_namespace({"metadata": {"name": name}})
    return name
