"""A world for labs: the dev cluster with LPU nodes, the dev identity provider, a stand-in lab server
on loopback that every lab's Service reaches (NUFI_LAB_ROUTE=cluster-dns, the DNS template pointing at
it), and NuFi served by uvicorn on loopback. `user` is a member of `project`, never of
`foreign_project`."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from nufi_sandbox.devcluster.crds import NOTEBOOKS_CRD_NAME, notebooks_crd
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.loopback import serve_in_thread
from support.polling import until

from . import upstream
from .labs_world import NODES, Kube, World, create_project, project_name, register_lpu, running

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@pytest.fixture(scope="package")
def cluster() -> Iterator[DevClusterProcess]:
    state = Path(tempfile.mkdtemp(prefix="lab-", dir="/tmp"))
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
def world(cluster: DevClusterProcess, idp: IdentityProviderProcess) -> World:
    return World(cluster, idp, idp.password_token("admin", "admin"), idp.password_token("user", "user"))


@pytest.fixture(scope="package")
def lab_server() -> Iterator[str]:
    with serve_in_thread(upstream.app, name="stand-in-lab") as url:
        yield url


@pytest.fixture(scope="package")
async def nufi_url(
    world: World, lab_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    database = tmp_path_factory.mktemp("labs-db") / "nufi.db"
    settings = world.settings(
        f"sqlite+aiosqlite:///{database}", lab_route="cluster-dns", lab_cluster_dns_url=lab_server
    )
    async with running(settings) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            await register_lpu(client, world)
        yield url


@pytest.fixture
async def nufi(nufi_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=nufi_url, timeout=30) as client:
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
async def kube(cluster: DevClusterProcess) -> AsyncIterator[Kube]:
    client = Kube(cluster)
    yield client
    await client.close()


@pytest.fixture
async def notebooks(kube: Kube) -> AsyncIterator[None]:
    """The Kubeflow Notebook CRD installed for one test (the dev cluster's notebook controller runs
    while it exists), removed after it: the other tests share the cluster and expect none."""
    await kube.create(CRD_PATH, notebooks_crd())

    async def served() -> bool:
        return await kube.get("/apis/kubeflow.org/v1") is not None

    await until(served, within=10)
    yield
    await kube.delete(f"{CRD_PATH}/{NOTEBOOKS_CRD_NAME}")
