"""The workload pages' world, shared by their browser tests (one NuFi per test process: NiceGUI serves
one dashboard app per process): NuFi (API and dashboard, as `nufi serve` builds it) served by uvicorn
on a loopback port in this process, over a dev cluster with LPU nodes (and an NPU node, a second type
to choose) and a database file; a project `user` belongs to with Ready and Pending deployments, labs in
three states and a quota of 40 LPUs, 19 in use. The signed-in person is named in a request header
(sign-in has its own browser test). And how a test opens a page, photographs it and reads its texts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest
from playwright.async_api import Browser, Page
from pydantic import SecretStr
from starlette.requests import Request

from e2e.browser_support import LOCALES, speaks
from e2e.browser_support import shot as browser_shot
from nufi.auth import Principal
from nufi.cli import _Faces, build_server
from nufi.config import Settings
from nufi.devices.spec import DeviceTypeCreate
from nufi.services import Services
from nufi.ui import context
from nufi.ui.i18n import Language, text
from nufi.workloads.deployments.spec import DeploymentCreate
from nufi.workloads.labs.model import LabRequest
from nufi.workloads.quotas.room import QuotaSpec
from support.dev_cluster import dev_cluster
from support.lpu_type import lpu_type
from support.polling import until
from support.world import running

USER_HEADER = "x-test-user"
PEOPLE = {
    "admin": Principal(subject="s-admin", username="admin", roles=frozenset({"nufi-admin"})),
    "user": Principal(subject="s-user", username="user", roles=frozenset()),
    "newcomer": Principal(subject="s-new", username="newcomer", roles=frozenset()),
}
NODES = """\
nodes:
  - name: lpu-node-1
    capacity: {hyperaccel.ai/lpu: 6}
  - name: lpu-node-2
    capacity: {hyperaccel.ai/lpu: 4}
  - name: npu-node-1
    capacity: {example.com/npu: 2}
  - name: cpu-node-1
"""
PROJECT = "team-llm"
NPU_NAME = "Example NPU"


@dataclass(frozen=True)
class World:
    url: str
    services: Services


async def _who(request: Request) -> Principal | None:
    return PEOPLE.get(request.headers.get(USER_HEADER, ""))


@asynccontextmanager
async def workload_pages_world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    """NuFi served over a dev cluster of `NODES`, with `_populate`'s project, workloads and quota."""
    database = tmp_path_factory.mktemp("workload-pages") / "nufi.db"
    with dev_cluster(NODES, prefix="wlp-") as cluster:
        # A lab's activity is read again after 2 s, not 15: the activity walk waits for it twice.
        settings = Settings(
            kubeconfig=cluster.kubeconfig,
            database_url=SecretStr(f"sqlite+aiosqlite:///{database}"),
            lab_activity_cache_seconds=2.0,
        )
        async with running(build_server(settings, _Faces(api=True, dashboard=True))) as url:
            services = context.services()
            context.attach(services, _who)
            await _populate(services)
            yield World(url, services)


async def _populate(services: Services) -> None:
    """A project `user` belongs to, with a Ready and a Pending deployment and labs in three states."""
    admin, user = PEOPLE["admin"], PEOPLE["user"]
    await services.catalog.create(admin, DeviceTypeCreate.model_validate(lpu_type()), force=True)
    # A second type, listed after the LPU: a choice of it is what the form must remember.
    npu = lpu_type(id="npu", name=NPU_NAME, resource_key="example.com/npu")
    await services.catalog.create(admin, DeviceTypeCreate.model_validate(npu), force=True)
    await services.projects.create(admin, PROJECT, ["user", "alice"])
    await services.projects.create(admin, "research", ["bob"])

    def deployment(name: str, count: int, replicas: int) -> DeploymentCreate:
        return DeploymentCreate.model_validate(
            {
                "name": name,
                "image": "nufi-mock:inference",
                "accelerator": {"device_type": "lpu", "count": count},
                "replicas": replicas,
            }
        )

    def lab(name: str, kind: str, count: int) -> LabRequest:
        return LabRequest.model_validate(
            {"name": name, "kind": kind, "accelerator": {"device_type": "lpu", "count": count}}
        )

    # Five LPUs fit only lpu-node-1: placed first, before the small ones could take any of it.
    await services.deployments.create(user, PROJECT, deployment("llm-big", 5, 1))
    await until(lambda: _status(services, "llm-big", "Ready"), within=30)
    await services.deployments.create(user, PROJECT, deployment("llm-chat", 1, 2))
    await services.deployments.create(user, PROJECT, deployment("llm-huge", 5, 1))
    await services.labs.create(user, PROJECT, lab("notebook", "jupyter", 1))
    await services.labs.create(user, PROJECT, lab("editor", "vscode", 1))
    await services.labs.stop(user, PROJECT, "editor")
    await services.labs.create(user, PROJECT, lab("waiting", "jupyter", 6))
    await until(lambda: _status(services, "llm-huge", "Pending"), within=30)
    # Room to spare (19 LPUs asked for above), so the form's own refusals below stay the ones shown.
    await services.quotas.replace(admin, PROJECT, QuotaSpec(devices={"lpu": 40}, storage="100Gi", pods=30))
    await until(lambda: _quota_counted(services), within=30)


async def _quota_counted(services: Services) -> bool:
    """The dev cluster's quota controller has counted the project's pods into the quota's status."""
    quota = await services.quotas.read(PEOPLE["admin"], PROJECT)
    return [(d.device_type, d.used) for d in quota.devices] == [("lpu", 19)]


async def _status(services: Services, name: str, status: str) -> bool:
    return (await services.deployments.get(PEOPLE["user"], PROJECT, name)).status == status


async def open_as(browser: Browser, who: str, language: str, url: str) -> Page:
    page_context = await browser.new_context(
        locale=LOCALES[language],
        viewport={"width": 1400, "height": 900},
        extra_http_headers={USER_HEADER: who},
    )
    page = await page_context.new_page()
    await page.goto(url)
    return page


async def shot(page: Page, language: str, name: str, *, full: bool = True) -> None:
    """Every state photographed is also read: it must speak the page's language only."""
    await speaks(page, language, f"workloads {name}")
    await browser_shot(page, f"workloads-{language}-{name}", full_page=full)


def t(language: str, key: str, **fields: object) -> str:
    assert language in LOCALES
    chosen: Language = "ko" if language == "ko" else "en"
    return text(chosen, key, **fields)
