"""Workloads → Labs: a project's Jupyter and VS Code labs, their status (and why one waits), open /
stop / start / delete per row, and a form that creates one on an accelerator the cluster has. The page
is the one workload page (`nufi.ui.parts.workload_page`) over this kind.

Open is a plain link to the lab's path on the dashboard's origin, in a new tab (`noopener`): the lab
proxy checks the member there and sends the browser on to the lab's own origin with a grant for that
lab alone (nufi.api.labproxy.origin), so the dashboard never renders a lab. Stop and Start act at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from nufi.auth import Principal
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.moments import utc_text
from nufi.ui.parts.workload_forms import (
    FieldErrors,
    accelerator_text,
    as_int,
    elapsed,
    problem_text,
    workload_cells,
)
from nufi.ui.parts.workload_page import RowButton, WorkloadKind, WorkloadPage
from nufi.ui.skeleton import Visit
from nufi.workloads.labs.activity import Activity
from nufi.workloads.labs.model import MAX_STORAGE_GIB, Lab, LabRequest

PATH = "/labs"
COLUMNS = ("name", "kind", "status", "last_active", "accelerator", "storage", "reason", "age")
KIND_NAMES = {"jupyter": "Jupyter", "vscode": "VS Code"}
DEFAULT_STORAGE_GIB = 10


async def build(visit: Visit) -> None:
    await WorkloadPage(visit, Labs()).build(visit.param("project"))


@dataclass(frozen=True)
class _Inputs:
    kind: ui.toggle
    storage: ui.number


_Page = WorkloadPage[Lab, _Inputs]


async def _stop(page: _Page, name: str) -> None:
    await _act(page, name, "stop")


async def _start(page: _Page, name: str) -> None:
    await _act(page, name, "start")


async def _act(page: _Page, name: str, action: str) -> None:
    labs = context.services().labs
    run = labs.stop if action == "stop" else labs.start
    try:
        await run(page.principal, page.project, name)
    except Exception as exc:  # every refusal is shown; the log has the unexpected ones
        ui.notify(problem_text(page.t, exc), type="negative", multi_line=True)
        return
    ui.notify(page.t(f"labs.done.{action}", name=name))
    await page.refresh()


def activity_cells(t: Translator, activity: Activity | None) -> dict[str, str]:
    """The "last active" cell: how long ago, or why it is not known, and the instant behind it for the
    tooltip (`active_at`, ISO; `active_utc`, its UTC text until the page's script shows it locally)."""
    if activity is None:
        return {"last_active": "—", "active_tip": "", "active_at": "", "active_utc": ""}
    at, tip = activity.read_at, "labs.active.read_at"
    if activity.state == "unreachable":
        shown = t("labs.active.unknown")
        tip = "labs.active.unreachable_at"
    elif activity.state == "busy":
        shown = t("labs.active.busy")
    elif activity.last_active is None:
        shown = t("labs.active.none")
    else:
        at, tip = activity.last_active, "labs.active.at"
        unit, count = elapsed(at)
        shown = t(f"labs.active.ago.{unit}", n=count)
    return {
        "last_active": shown,
        "active_tip": t(tip),
        "active_at": at.isoformat(),
        "active_utc": utc_text(at),
    }


def _activity_slot() -> str:
    return """
<q-td :props="props">
  <span :data-testid="'active-' + props.row.name" :class="props.row.active_at ? '' : 'text-grey-5'">{{
    props.row.last_active }}
    <q-tooltip v-if="props.row.active_at" class="text-body2">{{ props.row.active_tip }}
      <time data-local :datetime="props.row.active_at" :title="props.row.active_utc">{{
        props.row.active_utc }}</time>
    </q-tooltip>
  </span>
</q-td>
"""


_OPEN = RowButton(
    "labs.action.open",
    "open_in_new",
    look='color="primary" class="q-px-sm"',
    attributes=(
        'type="a" :href="props.row.url" target="_blank" rel="noopener" :disable="!props.row.openable"'
        " :data-testid=\"'open-' + props.row.name\""
    ),
)


class Labs(WorkloadKind[Lab, _Inputs]):
    path = PATH
    marker = "labs"
    form_marker = "lab-form"
    prefix = "lab"
    create_icon = "science"
    area = "labs"
    column_names = COLUMNS
    name_placeholder = "my-notebook"
    buttons = (
        (_OPEN, None),
        (RowButton("labs.action.start", "play_arrow", "start", look='v-if="props.row.stopped" flat'), _start),
        (RowButton("labs.action.stop", "stop", "stop", look="v-else flat"), _stop),
    )

    def slots(self, t: Translator) -> dict[str, str]:
        return {"body-cell-last_active": _activity_slot()}

    async def read(self, principal: Principal, project: str) -> Sequence[Lab]:
        return await context.services().labs.list_labs(principal, project)

    def row(self, t: Translator, names: dict[str, str], item: Lab) -> dict[str, Any]:
        accelerator = item.accelerator
        return (
            workload_cells(t, item.name, item.status, item.reason, item.created_at)
            | {
                "kind": KIND_NAMES.get(item.kind, item.kind),
                "accelerator": accelerator_text(names, accelerator.device_type, accelerator.count),
                "storage": f"{item.storage_gib} GiB" if item.storage_gib else "—",
                "url": item.url,
                "stopped": item.status == "Stopped",
                "openable": item.status == "Ready",
            }
            | activity_cells(t, item.activity)
        )

    async def delete(self, principal: Principal, project: str, name: str) -> None:
        await context.services().labs.delete(principal, project, name)

    def delete_body(self, t: Translator, project: str) -> str:
        return t("labs.delete.body")

    async def fields(self, page: _Page, errors: FieldErrors) -> _Inputs:
        """The kind (Jupyter or VS Code), the accelerator and its count, and the storage."""
        t = page.t
        with ui.column().classes("gap-1"):
            with ui.row().classes("items-center gap-3 h-10"):
                ui.label(t("labs.field.kind")).classes("text-slate-700")
                kind = ui.toggle(dict(KIND_NAMES), value="jupyter").props("no-caps").mark("lab-kind")
            errors.slot("kind")
        await page.accelerator_fields(errors)
        with ui.column().classes("gap-1"):
            storage = ui.number(
                t("labs.field.storage"), value=DEFAULT_STORAGE_GIB, min=1, max=MAX_STORAGE_GIB
            )
            page.cell(storage, errors, "storage", "storage_gib")
        return _Inputs(kind, storage)

    def request(self, t: Translator, errors: FieldErrors, own: _Inputs) -> dict[str, Any] | None:
        return {"kind": own.kind.value, "storage_gib": as_int(own.storage.value)}

    async def create(self, principal: Principal, project: str, body: dict[str, Any]) -> str:
        request = LabRequest.model_validate(body)
        return (await context.services().labs.create(principal, project, request)).name
