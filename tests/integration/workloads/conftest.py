"""A world for projects and deployments: the dev cluster with LPU nodes, the dev identity provider,
a real Prometheus (the catalog's save checks ask it), and NuFi served in memory on SQLite. Each test
gets a project of its own; `user` is a member of it, and never of `foreign_project`."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer

from .workloads_world import NODES, World, create_project, project_name, register_lpu, serve


@pytest.fixture(scope="package")
def cluster() -> Iterator[DevClusterProcess]:
    state = Path(tempfile.mkdtemp(prefix="wl-", dir="/tmp"))
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
def world(cluster: DevClusterProcess, idp: IdentityProviderProcess, prometheus: PrometheusServer) -> World:
    return World(
        cluster, idp, prometheus, idp.password_token("admin", "admin"), idp.password_token("user", "user")
    )


@pytest.fixture
async def nufi(world: World, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}")) as client:
        await register_lpu(client, world)
        yield client


@pytest.fixture
async def project(nufi: httpx.AsyncClient, world: World) -> AsyncIterator[str]:
    """A project `user` is a member of, deleted (with everything in it) after the test."""
    name = project_name()
    await create_project(nufi, world, name, ["user"])
    yield name
    await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


@pytest.fixture
async def foreign_project(nufi: httpx.AsyncClient, world: World) -> AsyncIterator[str]:
    """A project `user` is not a member of."""
    name = project_name()
    await create_project(nufi, world, name, ["someone-else"])
    yield name
    await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


@pytest.fixture
async def kube(world: World) -> AsyncIterator[httpx.AsyncClient]:
    """The dev cluster's API, as NuFi's service account: to see and make what NuFi would."""
    async with httpx.AsyncClient(
        base_url=world.cluster.url, headers={"Authorization": "Bearer nufi-dev-token"}, timeout=10
    ) as client:
        yield client
