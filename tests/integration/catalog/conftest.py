"""A world for the device catalog API: dev cluster, mock LPU exporter under a real Prometheus, the dev
identity provider, and NuFi served in memory on SQLite or PostgreSQL."""

from __future__ import annotations

import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.postgres import PostgresServer
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob

from .catalog_world import NODES, World, serve


@pytest.fixture(scope="package")
def cluster() -> Iterator[DevClusterProcess]:
    state = Path(tempfile.mkdtemp(prefix="cat-", dir="/tmp"))
    (state / "nodes.yaml").write_text(NODES)
    process = DevClusterProcess(state, nodes_file=state / "nodes.yaml")
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="package")
def idp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IdentityProviderProcess]:
    process = IdentityProviderProcess(tmp_path_factory.mktemp("idp"))
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="package")
def lpu_exporter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    process = ManagedProcess(
        "lpu-exporter",
        [
            sys.executable,
            "-m",
            "nufi_mock",
            "exporter",
            "--profile",
            "lpu",
            "--nodes",
            "lpu-node-1,lpu-node-2",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-pod-resources",
        ],
        log_dir=tmp_path_factory.mktemp("exporter"),
    )
    process.start()
    process.wait_ready(
        lambda: httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=1).status_code == 200,
        timeout=30,
        what="the LPU exporter serving /metrics",
    )
    yield f"127.0.0.1:{port}"
    process.stop()


@pytest.fixture(scope="package")
async def world(
    cluster: DevClusterProcess, idp: IdentityProviderProcess, prometheus: PrometheusServer, lpu_exporter: str
) -> World:
    prometheus.set_jobs([ScrapeJob("lpu", [lpu_exporter])])
    await prometheus.wait_for_series('lpu_temperature_celsius{node="lpu-node-2"}', 30)
    return World(
        cluster, idp, prometheus, idp.password_token("admin", "admin"), idp.password_token("user", "user")
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"
    postgres: PostgresServer = request.getfixturevalue("postgres")
    name = f"cat_{uuid.uuid4().hex[:10]}"
    postgres.psql(f"CREATE DATABASE {name}")
    return postgres.sqlalchemy_url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"


@pytest.fixture
async def nufi(world: World, sqlite_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(world.settings(sqlite_url)) as client:
        yield client
