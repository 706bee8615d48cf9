"""The fixtures of the integration world (`support.world`), defined once.

`cluster`, `idp` and `world` are package-scoped: an area that works in the world imports them into its
conftest.py (`from support.world_fixtures import cluster, idp, world`), and its tests then share one
dev cluster and one identity provider. pytest scopes a package fixture to the package that defines
it, so defined in tests/conftest.py they would be one for the whole run, shared by areas that change
the cluster under each other.

The per-test fixtures (`nufi`, `project`, `foreign_project`, `kube`) are registered for every test by
tests/conftest.py; they use whatever `world` and `nufi` the test's area provides. Being imported by
every run, this module imports NuFi itself (`support.world`) only when a fixture is used: a unit test
run does not load the app.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.dev_cluster import DEV_HEADERS, dev_cluster

if TYPE_CHECKING:
    from support.world import World


@pytest.fixture(scope="package")
def cluster() -> Iterator[DevClusterProcess]:
    """The dev cluster with the world's nodes (`support.world.NODES`)."""
    from support.world import NODES

    with dev_cluster(NODES, prefix="world-") as started:
        yield started


@pytest.fixture(scope="package")
def idp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IdentityProviderProcess]:
    """The dev identity provider with the sandbox realm's users (admin/admin, user/user)."""
    process = IdentityProviderProcess(tmp_path_factory.mktemp("idp")).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="package")
def world(cluster: DevClusterProcess, idp: IdentityProviderProcess, prometheus: PrometheusServer) -> World:
    from support.world import World

    return World.signed_in(cluster, idp, prometheus)


@pytest.fixture
async def nufi(world: World, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi in memory over the world, on a SQLite file of the test's own, the LPU registered."""
    from support.world import register_lpu, serve

    async with serve(world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}")) as client:
        await register_lpu(client, world)
        yield client


@pytest.fixture
async def project(nufi: httpx.AsyncClient, world: World) -> AsyncIterator[str]:
    """A project `user` is a member of, deleted (with everything in it) after the test."""
    from support.world import create_project, project_name

    name = project_name()
    await create_project(nufi, world, name, ["user"])
    yield name
    await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


@pytest.fixture
async def foreign_project(nufi: httpx.AsyncClient, world: World) -> AsyncIterator[str]:
    """A project `user` is not a member of, deleted after the test."""
    from support.world import create_project, project_name

    name = project_name()
    await create_project(nufi, world, name, ["someone-else"])
    yield name
    await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


@pytest.fixture
async def kube(world: World) -> AsyncIterator[httpx.AsyncClient]:
    """The dev cluster's API, as NuFi's service account: to see and make what NuFi would."""
    async with httpx.AsyncClient(base_url=world.cluster.url, headers=DEV_HEADERS, timeout=10) as client:
        yield client
