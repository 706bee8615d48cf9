"""Labs in the integration world (`support.world`), on a dev cluster of this package's own (the tests
fill its LPU nodes); a stand-in lab server on loopback that every lab's Service reaches
(NUFI_LAB_ROUTE=cluster-dns, the DNS template pointing at it), and NuFi served by uvicorn on loopback
once for the package (`nufi_url`) and, with every lab on an origin of its own, once per module that
asks (`site`). `project` and `foreign_project` come from tests/conftest.py over this package's
`nufi`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from nufi_sandbox.devcluster.crds import NOTEBOOKS_CRD_NAME, notebooks_crd
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.loopback import serve_in_thread
from support.polling import until
from support.world import World, register_lpu
from support.world_fixtures import cluster, world

from . import upstream
from .lab_site import Site, on_own_origins
from .labs_world import Kube, lab_settings, running

__all__ = ["cluster", "world"]
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@pytest.fixture(scope="package")
def lab_server() -> Iterator[str]:
    with serve_in_thread(upstream.app, name="stand-in-lab") as url:
        yield url


@pytest.fixture(scope="package")
async def nufi_url(
    world: World, lab_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    database = tmp_path_factory.mktemp("labs-db") / "nufi.db"
    settings = lab_settings(
        world, f"sqlite+aiosqlite:///{database}", lab_route="cluster-dns", lab_cluster_dns_url=lab_server
    )
    async with running(settings) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            await register_lpu(client, world)
        yield url


@pytest.fixture(scope="module")
async def site(
    world: World, lab_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Site]:
    """NuFi with every lab on an origin of its own (`lab_site.Site`), once per module that asks."""
    async with on_own_origins(world, lab_server, tmp_path_factory.mktemp("origins-db") / "nufi.db") as site:
        yield site


@pytest.fixture
async def client(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    """A client of `site`'s dashboard origin (a lab's host is named per request: `lab_site.on_lab`)."""
    async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:
        yield client


@pytest.fixture
async def nufi(nufi_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=nufi_url, timeout=30) as client:
        yield client


@pytest.fixture
async def kube(cluster: DevClusterProcess) -> AsyncIterator[Kube]:
    """The dev cluster's objects as plain JSON (`Kube`), not the raw client other areas get."""
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
