"""The fixtures of the integration world (`support.world`), defined once.

Registered for every test by tests/conftest.py: `cluster`, one dev cluster with the world's nodes for
the whole run, shared by the areas that leave it as they found it (workloads, thermal); `idp`, one dev
identity provider for the whole run (it keeps nothing a test changes); and the per-test `nufi`,
`project`, `foreign_project` and `kube`, which use whatever `world` and `nufi` the test's area gives.

`world` is package-scoped: an area imports it into its conftest.py (`from support.world_fixtures import
world`), and so does `cluster` an area whose tests would disturb another's (the catalog counts what the
nodes hold, the labs fill them, the fault tests list every namespace NuFi made): imported there it is
one cluster for that package. pytest scopes a package fixture to the package that defines it, which is
why these are imported rather than registered once.

Being imported by every run, this module imports NuFi itself (`support.world`) only when a fixture is
used: a unit test run does not load the app.
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


def _world_cluster() -> Iterator[DevClusterProcess]:
    from support.world import NODES

    with dev_cluster(NODES, prefix="world-") as started:
        yield started


@pytest.fixture(scope="session", name="cluster")
def shared_cluster() -> Iterator[DevClusterProcess]:
    """The dev cluster with the world's nodes (`support.world.NODES`), one for the whole run."""
    yield from _world_cluster()


@pytest.fixture(scope="package")
def cluster() -> Iterator[DevClusterProcess]:
    """A dev cluster with the world's nodes for the one package that imports this fixture."""
    yield from _world_cluster()


@pytest.fixture(scope="session")
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
