"""End to end through the dev cluster: its kubelet runs a Jupyter lab's container as a real JupyterLab
process, and NuFi reaches it as from outside a cluster, through the Kubernetes API's services proxy
(NUFI_LAB_ROUTE=service-proxy) — HTTP pages and REST calls, and a kernel's WebSocket running code."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace

import httpx
import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.devcluster.runtime.map import ImageEntry, RuntimeMap
from nufi_sandbox.sandbox.images import JUPYTER, VSCODE
from support.dev_cluster import dev_cluster
from support.jupyter_kernel import run_in_kernel
from support.polling import until
from support.world import NODES, World, create_project, project_name, register_lpu

from .labs_world import lab_body, running


@pytest.fixture(scope="module")
def process_cluster() -> Iterator[DevClusterProcess]:
    """The world's nodes on a dev cluster whose kubelets run the lab images as programs."""
    wrapper = (sys.executable, "-m", "nufi_sandbox.runtime")
    runtime_map = RuntimeMap(
        images={
            JUPYTER: ImageEntry(argv=(*wrapper, "jupyter"), env={}),
            VSCODE: ImageEntry(argv=(*wrapper, "vscode"), env={}),
        }
    )
    with dev_cluster(NODES, prefix="labp-", runtime_map=runtime_map) as started:
        yield started


@pytest.fixture(scope="module")
async def through_cluster(
    process_cluster: DevClusterProcess, world: World, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    here = replace(world, cluster=process_cluster)
    database = tmp_path_factory.mktemp("labs-e2e") / "nufi.db"
    settings = here.settings(f"sqlite+aiosqlite:///{database}", lab_route="service-proxy")
    async with running(settings) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            await register_lpu(client, here)
        yield url


async def test_a_jupyter_lab_opens_through_nufi_and_the_services_proxy(
    through_cluster: str, world: World
) -> None:
    project = project_name()
    async with httpx.AsyncClient(base_url=through_cluster, timeout=30) as nufi:
        await create_project(nufi, world, project, ["user"])
        try:
            created = await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
            assert created.status_code == 201, created.text

            async def ready() -> bool:
                lab = (await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).json()
                return bool(lab["status"] == "Ready")

            # Ready comes from the readiness probe on the lab's own /api, answered by JupyterLab.
            await until(ready, within=60, every=0.5)
            prefix = f"/labs/{project}/lab/"
            status = await nufi.get(f"{prefix}api/status", headers=world.user)
            assert status.status_code == 200, status.text
            assert status.json()["kernels"] == 0
            page = await nufi.get(f"{prefix}lab", headers=world.user)
            assert page.status_code == 200 and "JupyterLab" in page.text
            # Links stay on NuFi's paths, whatever the services proxy did to them.
            assert "/proxy/" not in page.text and prefix in page.text
            xsrf = page.cookies["_xsrf"]
            cookies = {"Cookie": f"_xsrf={xsrf}"}
            kernel = await nufi.post(
                f"{prefix}api/kernels",
                json={"name": "python3"},
                headers={**world.user, **cookies, "X-XSRFToken": xsrf},
            )
            assert kernel.status_code == 201, kernel.text
            ws_url = (
                through_cluster.replace("http://", "ws://")
                + f"{prefix}api/kernels/{kernel.json()['id']}/channels"
            )
            printed = await run_in_kernel(
                ws_url, "import os; print(os.environ['NB_PREFIX'])", headers={**world.user, **cookies}
            )
            assert printed.strip() == prefix
            # Strangers stay out of the running lab as well.
            assert (await nufi.get(f"{prefix}api/status")).status_code == 401
        finally:
            await nufi.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)


async def test_a_vscode_lab_opens_at_its_root_through_the_services_proxy(
    through_cluster: str, world: World
) -> None:
    project = project_name()
    async with httpx.AsyncClient(base_url=through_cluster, timeout=30) as nufi:
        await create_project(nufi, world, project, ["user"])
        try:
            body = lab_body("code", kind="vscode")
            created = await nufi.post(f"/api/v1/projects/{project}/labs", json=body, headers=world.user)
            assert created.status_code == 201, created.text

            async def ready() -> bool:
                lab = (await nufi.get(f"/api/v1/projects/{project}/labs/code", headers=world.user)).json()
                return bool(lab["status"] == "Ready")

            # Ready from the probe on /healthz at the server's root: the prefix is the proxy's.
            await until(ready, within=60, every=0.5)
            page = await nufi.get(f"/labs/{project}/code/", headers=world.user)
            assert page.status_code == 200, page.text
            assert "VS Code" in page.text and "stand-in" in page.text
        finally:
            await nufi.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)
