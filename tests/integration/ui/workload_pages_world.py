"""What the workload pages' simulated-user tests run against: a dev cluster with LPU nodes, the
dashboard over it with the LPU registered, projects made through the project service, and small helpers
to read and drive the pages."""

from __future__ import annotations

import copy
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from nicegui import ui
from nicegui.elements.mixins.value_element import ValueElement
from nicegui.testing import User

from nufi.devices.spec import DeviceTypeCreate
from nufi.services import Services
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.lpu_type import LPU_LABELS, LPU_METRICS, LPU_RESOURCE_KEY
from support.polling import eventually

from .people import PEOPLE
from .wizard_world import as_, attached_services, dashboard, dashboard_env

LPU = LPU_RESOURCE_KEY
# Six and four LPUs: a pod asking for five fits only lpu-node-1, so a second such pod waits.
NODES = """\
nodes:
  - name: lpu-node-1
    capacity: {hyperaccel.ai/lpu: 6}
  - name: lpu-node-2
    capacity: {hyperaccel.ai/lpu: 4}
  - name: cpu-node-1
"""
LPU_TYPE: dict[str, Any] = {
    "id": "lpu",
    "name": "HyperAccel LPU",
    "vendor": "HyperAccel",
    "resource_key": LPU,
    "labels": copy.deepcopy(LPU_LABELS),
    "metrics": copy.deepcopy(LPU_METRICS),
}
ADMIN = PEOPLE["admin"]


def start_lpu_cluster(work: Path) -> DevClusterProcess:
    (work / "nodes.yaml").write_text(NODES)
    return DevClusterProcess(work / "cluster", nodes_file=work / "nodes.yaml").start()


@asynccontextmanager
async def workload_dashboard(
    cluster: DevClusterProcess, work: Path, settings: Mapping[str, str] | None = None
) -> AsyncIterator[User]:
    """The dashboard over `cluster`, its database a file under `work` and NUFI_* `settings` beside,
    with the LPU type registered (forced: no exporter is scraped here, so its metric checks would
    fail; the type is still data)."""
    env = dashboard_env(work, kubeconfig=cluster.kubeconfig) | dict(settings or {})
    async with dashboard(env) as user:
        await services().catalog.create(ADMIN, DeviceTypeCreate.model_validate(LPU_TYPE), force=True)
        try:
            yield user
        finally:
            # The cluster outlives the test: its projects (and everything in them) go with it.
            for project in await services().projects.visible_projects(ADMIN):
                await services().projects.delete(ADMIN, project.name)


def services() -> Services:
    return attached_services()


def project_name() -> str:
    return f"p-{uuid.uuid4().hex[:8]}"


async def new_project(*members: str) -> str:
    name = project_name()
    await services().projects.create(ADMIN, name, members)
    return name


async def open_page(user: User, who: str, language: str, path: str, ready: str = "dep-create") -> None:
    """Open `path` as `who` and wait for the element marked `ready` (the page reads the cluster as it
    is built)."""
    await as_(user, who, language).open(path)
    await user.should_see(marker=ready, retries=200)


def table_rows(user: User) -> dict[str, dict[str, Any]]:
    """The rows of the page's one table, by name."""
    with user:
        (table,) = user.find(kind=ui.table).elements
    assert isinstance(table, ui.table)
    return {row["name"]: row for row in table.rows}


async def row_becomes(user: User, name: str, within: float = 30, **expected: object) -> dict[str, Any]:
    def check() -> dict[str, Any]:
        rows = table_rows(user)
        assert name in rows, rows
        row = rows[name]
        for key, value in expected.items():
            assert row[key] == value, (key, row)
        return row

    return await eventually(check, within=within)


async def row_gone(user: User, name: str, within: float = 30) -> None:
    def check() -> None:
        assert name not in table_rows(user)

    await eventually(check, within=within)


def set_value(user: User, marker: str, value: object) -> None:
    with user:
        (element,) = user.find(marker=marker).elements
        assert isinstance(element, ValueElement), element
        element.value = value


def send(user: User, event: str, name: str) -> None:
    """What a row's button (in the table's Quasar slot, which the simulated user cannot click) emits."""
    user.find(kind=ui.table).trigger(event, name)
