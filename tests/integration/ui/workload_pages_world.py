"""What the workload pages' simulated-user tests run against: the dashboard over the run's dev cluster
(the world's nodes, `support.world.NODES`) with the LPU registered, projects made through the project
service, and small helpers to read and drive the pages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from nicegui import ElementFilter, ui
from nicegui.elements.mixins.value_element import ValueElement
from nicegui.testing import User

from nufi.devices.spec import DeviceTypeCreate
from nufi.services import Services
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.lpu_type import LPU_RESOURCE_KEY, lpu_type
from support.polling import eventually
from support.world import project_name

from .people import PEOPLE
from .wizard_world import as_, attached_services, dashboard, dashboard_env

LPU = LPU_RESOURCE_KEY
ADMIN = PEOPLE["admin"]


@asynccontextmanager
async def workload_dashboard(
    cluster: DevClusterProcess, work: Path, settings: Mapping[str, str] | None = None
) -> AsyncIterator[User]:
    """The dashboard over `cluster`, its database a file under `work` and NUFI_* `settings` beside,
    with the LPU type registered (forced: no exporter is scraped here, so its metric checks would
    fail; the type is still data)."""
    env = dashboard_env(work, kubeconfig=cluster.kubeconfig) | dict(settings or {})
    async with dashboard(env) as user:
        await services().catalog.create(ADMIN, DeviceTypeCreate.model_validate(lpu_type()), force=True)
        try:
            yield user
        finally:
            # The cluster outlives the test: its projects (and everything in them) go with it.
            for project in await services().projects.visible_projects(ADMIN):
                await services().projects.delete(ADMIN, project.name)


def services() -> Services:
    return attached_services()


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


def fit_warning(user: User, marker: str) -> tuple[str, str] | None:
    """The warning under a form's count field (`<accelerator marker>-fit`): its level ("now" amber,
    "never" and "quota" red, read from its class as well as its data attribute) and text; None while
    hidden."""
    with user:
        # Hidden elements too: the simulated user's own `find` sees only visible ones.
        (label,) = ElementFilter(kind=ui.label, marker=f"{marker}-fit")
    if not label.visible:
        return None
    level = str(label.props.get("data-level"))
    colour = {"now": "text-amber-800", "never": "text-negative", "quota": "text-negative"}[level]
    assert colour in label.classes, (level, label.classes)
    return level, label.text


def options(user: User, marker: str) -> dict[str, str]:
    with user:
        (select,) = user.find(marker=marker).elements
    assert isinstance(select, ui.select)
    return dict(select.options)
