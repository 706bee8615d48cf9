"""The benchmark's world (the GPU world, with the sandbox realm for the dashboard's sign-in) and
`nufi serve`'s app in a process of its own (`bench.dashboard_server`), stopped by PID."""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from bench.common.gpu_world import GpuWorld
from bench.dashboard_server import FOOTPRINT_PATH, settings_env
from nufi.config import Settings
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.sandbox.components import DASHBOARD_CLIENT, DASHBOARD_SECRET, NUFI_AUDIENCE

# The server process runs `bench.dashboard_server` from the repository's root.
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class World:
    gpu: GpuWorld
    # Signs the dashboard's sessions; one per run.
    session_secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def identity(self) -> IdentityProviderProcess:
        return self.gpu.identity

    @property
    def work(self) -> Path:
        return self.gpu.work

    @property
    def settings(self) -> Settings:
        return self.gpu.settings(
            oidc_audience=NUFI_AUDIENCE,
            oidc_client_id=DASHBOARD_CLIENT,
            oidc_client_secret=SecretStr(DASHBOARD_SECRET),
            dashboard_session_secret=SecretStr(self.session_secret),
        )


@dataclass
class Server:
    """`nufi serve`'s app in a process of its own (`bench.dashboard_server`), stopped by PID."""

    process: ManagedProcess
    url: str

    @property
    def pid(self) -> int:
        return self.process.pid

    async def footprint(self, **params: int) -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=self.url, timeout=120.0) as client:
            response = await client.get(FOOTPRINT_PATH, params=params)
            response.raise_for_status()
            answer: dict[str, Any] = response.json()
            return answer


@contextlib.asynccontextmanager
async def serving(settings: Settings, work: Path, extra_env: dict[str, str]) -> AsyncIterator[Server]:
    """`nufi serve`'s app (API and dashboard) served by uvicorn on a free loopback port in a process
    of its own, with its lifespan (NiceGUI's wraps the app's), until its cluster cache serves."""
    port = free_port()
    env = settings_env(settings) | {"NUFI_HOST": "127.0.0.1", "NUFI_PORT": str(port)} | extra_env
    argv = [sys.executable, "-m", "bench.dashboard_server"]
    process = ManagedProcess("bench-nufi", argv, log_dir=work, env=env, cwd=REPO).start()
    server = Server(process, f"http://127.0.0.1:{port}")
    try:

        async def ready() -> bool:
            return bool((await server.footprint())["cluster_serving"])

        await process.wait_ready_async(ready, 120.0, "serving with its cluster cache synced")
        yield server
    finally:
        await process.stop_async(grace=15.0)
