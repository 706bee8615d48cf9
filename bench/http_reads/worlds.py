"""The two pages' worlds: the sandbox with the LPU registered, and the GPU world of 1,000 x 8 with
`nufi serve` in a process of its own."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common.gpu_world import gpu_world
from bench.common.sandbox import LPU_REGISTRATION, running_sandbox, token
from bench.dashboard_server import settings_env
from bench.http_reads.compare import Target
from nufi_sandbox.idp.realm import DEFAULT_USERS_FILE
from nufi_sandbox.processes import ManagedProcess, free_port

GPU_TYPE = "nvidia-gpu"
GPU_PAGE_NODES = 100


@dataclass(frozen=True)
class Page:
    target: Target
    type_id: str
    nufi: str
    prometheus: str


def _until_nodes(url: str, user: str, within: float) -> None:
    deadline = time.monotonic() + within
    while True:
        page = httpx.get(url, headers={"Authorization": f"Bearer {user}"}, timeout=120)
        if page.status_code == 200 and page.json()["nodes"]:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"no nodes in {url}: {page.status_code} {page.text[:300]}")
        time.sleep(1)


@contextmanager
def lpu_page() -> Iterator[Page]:
    with running_sandbox() as run:
        state = run.state
        nufi = state["nufi_url"]
        admin = token(state, "admin", "admin")
        created = httpx.post(
            f"{nufi}/api/v1/admin/devices",
            json=LPU_REGISTRATION,
            headers={"Authorization": f"Bearer {admin}"},
            timeout=60,
        )
        created.raise_for_status()
        user = token(state, "user", "user")
        url = f"{nufi}/api/v1/monitoring/lpu"
        _until_nodes(url, user, 60)
        yield Page(Target("LPU page", url, state["oidc_issuer"], user), "lpu", nufi, state["prometheus_url"])


@contextmanager
def gpu_page(work: Path) -> Iterator[Page]:
    with gpu_world(work, users_file=DEFAULT_USERS_FILE) as world:
        port = free_port()
        # API reads with the CLI client's tokens: no audience asked of them (the dashboard's is not in them).
        env = settings_env(world.settings())
        argv = [
            str(Path(sys.executable).with_name("nufi")),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ]
        nufi = f"http://127.0.0.1:{port}"
        process = ManagedProcess("nufi-serve", argv, log_dir=work, env=env).start()
        try:
            process.wait_ready(
                lambda: httpx.get(f"{nufi}/readyz", timeout=5).status_code == 200, 180, "ready"
            )
            user = world.identity.password_token("user", "user")
            url = f"{nufi}/api/v1/monitoring/{GPU_TYPE}?limit={GPU_PAGE_NODES}"
            _until_nodes(url, user, 180)
            target = Target(f"{GPU_PAGE_NODES}-node page of 1,000 x 8", url, world.identity.issuer, user)
            yield Page(target, GPU_TYPE, nufi, world.prometheus.url)
        finally:
            process.stop(grace=15)
