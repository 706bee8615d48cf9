"""The device catalog API in the integration world (`support.world`), on a dev cluster of this
package's own (the tests count what its nodes hold), with the mock LPU exporter scraped by the run's
Prometheus, so the catalog's metric checks find series; NuFi is served in memory on SQLite
(`sqlite_url`) or on each backend (`database_url`). The catalog tests register the LPU themselves, so
`nufi` here starts without it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.world import LPU_NODES, World, serve
from support.world_fixtures import cluster, world

__all__ = ["cluster", "world"]


@pytest.fixture(scope="package")
def lpu_exporter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The mock exporter's LPU profile for the world's LPU nodes, on a free loopback port."""
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--profile", "lpu", "--nodes", ",".join(LPU_NODES)]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--no-pod-resources"]
    process = ManagedProcess("lpu-exporter", argv, log_dir=tmp_path_factory.mktemp("exporter"))
    process.start()
    try:
        process.wait_ready(
            lambda: httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=1).status_code == 200,
            timeout=30,
            what="the LPU exporter serving /metrics",
        )
        yield f"127.0.0.1:{port}"
    finally:
        process.stop()


@pytest.fixture(scope="package", autouse=True)
async def lpu_scraped(prometheus: PrometheusServer, lpu_exporter: str) -> None:
    """Every catalog test sees the exporter's series in Prometheus."""
    prometheus.set_jobs([ScrapeJob("lpu", [lpu_exporter])])
    await prometheus.wait_for_series('lpu_temperature_celsius{node="lpu-node-2"}', 30)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"


@pytest.fixture
async def nufi(world: World, sqlite_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(world.settings(sqlite_url)) as client:
        yield client
