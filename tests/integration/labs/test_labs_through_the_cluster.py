"""End to end through the dev cluster: its kubelet runs a Jupyter lab's container as a real JupyterLab
process, and NuFi reaches it as from outside a cluster, through the Kubernetes API's services proxy
(NUFI_LAB_ROUTE=service-proxy) — HTTP pages and REST calls, and a kernel's WebSocket running code; and
each lab's activity, read by NuFi by the same road, moving when the lab is used."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any

import httpx
import pytest

from nufi_sandbox import code_server
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
            # Its pods run with a HOME of their own: they are told where `make setup` put code-server.
            VSCODE: ImageEntry(
                argv=(*wrapper, "vscode"), env={code_server.OVERRIDE_ENV: str(code_server.binary())}
            ),
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
    # Labs' activity is read again every half second, so a test sees it move without waiting.
    settings = here.settings(
        f"sqlite+aiosqlite:///{database}",
        lab_route="service-proxy",
        lab_activity_cache_seconds=0.5,
        # A loaded machine's services proxy may be slow: a reading must not end as unreachable.
        lab_activity_timeout_seconds=10,
    )
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
            assert created.json()["activity"] is None  # not running yet: nothing to read

            async def ready() -> bool:
                lab = (await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).json()
                return bool(lab["status"] == "Ready")

            # Ready comes from the readiness probe on the lab's own /api, answered by JupyterLab.
            await until(ready, within=60, every=0.5)
            # Its activity, read by NuFi by the same road: asking is not using, so a later reading
            # keeps the same last use.
            activity = _Activity(nufi, world, project, "lab")
            first = await until(lambda: activity.read_as("alive", "idle"), within=90, every=0.5)
            assert first["source"] == "jupyter" and first["last_active"] is not None
            again = await until(lambda: activity.later_than(first), within=30, every=0.3)
            assert again["last_active"] == first["last_active"]
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
            # Code running in a kernel reads busy, and the lab's last use has moved.
            await _run_code_seeing_busy(ws_url, {**world.user, **cookies}, activity)
            await until(lambda: activity.used_after(first), within=30, every=0.3)
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
            # NuFi reads code-server's own /healthz through the services proxy too (its probes are no use).
            activity = _Activity(nufi, world, project, "code")
            first = await until(lambda: activity.read_as("alive", "idle"), within=90, every=0.5)
            assert first["source"] == "code-server"
            root = await nufi.get(f"/labs/{project}/code/", headers=world.user)
            # code-server's own answer, a redirect relative to the lab's path, to the folder it opens.
            assert root.status_code == 302, root.text
            location = root.headers["location"]
            assert location.startswith("./?folder=")
            page = await nufi.get(f"/labs/{project}/code/{location.removeprefix('./')}", headers=world.user)
            assert page.status_code == 200 and "workbench" in page.text
            # Loading the workbench is use: the heartbeat NuFi reads moves.
            used = await until(lambda: activity.used_after(first), within=30, every=0.3)
            assert used["state"] == "alive"
        finally:
            await nufi.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class _Activity:
    """A lab's `activity` as `GET …/labs/{name}` shows it, read again on each call."""

    def __init__(self, nufi: httpx.AsyncClient, world: World, project: str, name: str) -> None:
        self._nufi, self._world, self._path = nufi, world, f"/api/v1/projects/{project}/labs/{name}"

    async def __call__(self) -> dict[str, Any]:
        lab = await self._nufi.get(self._path, headers=self._world.user)
        assert lab.status_code == 200, lab.text
        found: dict[str, Any] = lab.json()["activity"] or {}
        return found

    async def read_as(self, *states: str) -> dict[str, Any] | None:
        found = await self()
        return found if found.get("state") in states else None

    async def later_than(self, earlier: dict[str, Any]) -> dict[str, Any] | None:
        found = await self()
        return found if found.get("read_at", "") > earlier["read_at"] else None

    async def used_after(self, earlier: dict[str, Any]) -> dict[str, Any] | None:
        found = await self()
        last, before = found.get("last_active"), earlier["last_active"]
        return found if last and (before is None or _at(last) > _at(before)) else None


async def _run_code_seeing_busy(ws_url: str, headers: dict[str, str], activity: _Activity) -> None:
    """The kernel behind `ws_url` runs code for a while; meanwhile the lab reads busy."""
    code = "import time; time.sleep(15); print('done')"
    running_code = asyncio.ensure_future(run_in_kernel(ws_url, code, headers=headers))

    async def busy() -> dict[str, Any] | None:
        if running_code.done():
            # Ended before a reading saw it busy: fail at once, with the code's own failure if any.
            raise RuntimeError(f"the code ended before the lab read busy: {running_code.exception()!r}")
        return await activity.read_as("busy")

    try:
        await until(busy, within=120, every=0.3, what="busy while code runs")
        assert (await running_code).strip() == "done"
    finally:
        running_code.cancel()
