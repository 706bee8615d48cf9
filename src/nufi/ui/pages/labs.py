"""Workloads → Labs: a project's Jupyter and VS Code labs, their status (and why one waits), open /
stop / start / delete per row, and a form that creates one on an accelerator the cluster has.

Open is a plain link to the lab's path on the dashboard's origin, in a new tab (`noopener`): the lab
proxy checks the member there and sends the browser on to the lab's own origin with a grant for that
lab alone (nufi.api.lab_origin), so the dashboard never renders a lab. The other row buttons emit
`stop`, `start` or `delete` with the row's name. One timer reads the list and the accelerators again
and changes the rows and the drop-down's counts in place, leaving the form and an open dialog be.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nicegui import events, ui

from nufi.ui import context
from nufi.ui.parts.workload_accelerators import AcceleratorPicker
from nufi.ui.parts.workload_forms import (
    REFRESH_SECONDS,
    FieldErrors,
    accelerator_text,
    age_cells,
    as_int,
    confirm_delete,
    fill_table,
    problem_text,
    reason_cells,
    shown_project,
    status_cells,
    type_names,
    workload_table,
)
from nufi.ui.skeleton import Visit
from nufi.workloads.labs import Lab, LabRequest
from nufi.workloads.labs.model import MAX_STORAGE_GIB

PATH = "/labs"
COLUMNS = ("name", "kind", "status", "accelerator", "storage", "reason", "age")
KIND_NAMES = {"jupyter": "Jupyter", "vscode": "VS Code"}
DEFAULT_STORAGE_GIB = 10


async def build(visit: Visit) -> None:
    await LabsPage(visit).build(visit.param("project"))


class LabsPage:
    def __init__(self, visit: Visit) -> None:
        self.who = visit.who
        self.t = visit.t
        self.project = ""
        self.shown: dict[str, Lab] = {}
        self.names: dict[str, str] = {}
        self.accelerator: AcceleratorPicker | None = None
        self._dialog: ui.dialog | None = None

    async def build(self, asked: str) -> None:
        ui.label(self.t("labs.title")).classes("text-2xl font-semibold")
        chosen = await shown_project(self.who.principal, self.t, PATH, asked, "labs-error")
        if chosen is None:
            return
        self.project = chosen
        self.list_error, self.table = workload_table(
            self.t,
            self._columns(),
            marker="labs-error",
            empty=self.t("labs.empty"),
            actions=self._actions_slot(),
        )
        self.table.on("stop", self._on(self.stop))
        self.table.on("start", self._on(self.start))
        self.table.on("delete", self._on(self.ask_delete))
        self.names = await type_names(self.who.principal)
        await self.refresh()
        await self._form()
        ui.timer(REFRESH_SECONDS, self.tick)

    async def tick(self) -> None:
        """The page's one refresh: the drop-down's counts first, then the rows (named by them)."""
        if self.accelerator is not None:
            await self.accelerator.refresh()
            self.names |= self.accelerator.names()
        await self.refresh()

    # -- the list ------------------------------------------------------------------------------------

    async def refresh(self) -> None:
        labs = await fill_table(
            self.t,
            self.list_error,
            self.table,
            lambda: context.services().labs.list_labs(self.who.principal, self.project),
            self._row,
        )
        if labs is not None:
            self.shown = {lab.name: lab for lab in labs}

    def _row(self, lab: Lab) -> dict[str, Any]:
        accelerator = lab.accelerator
        return {
            "name": lab.name,
            "kind": KIND_NAMES.get(lab.kind, lab.kind),
            **status_cells(self.t, lab.status),
            "accelerator": accelerator_text(self.names, accelerator.device_type, accelerator.count),
            "storage": f"{lab.storage_gib} GiB" if lab.storage_gib else "—",
            **reason_cells(self.t, lab.reason),
            **age_cells(self.t, lab.created_at),
            "url": lab.url,
            "stopped": lab.status == "Stopped",
            "openable": lab.status == "Ready",
        }

    def _columns(self) -> list[dict[str, Any]]:
        columns = [
            {"name": name, "label": self.t(f"labs.column.{name}"), "field": name, "align": "left"}
            for name in COLUMNS
        ]
        columns.append({"name": "actions", "label": "", "field": "name", "align": "right"})
        return columns

    def _actions_slot(self) -> str:
        def label(said: str) -> str:
            return html.escape(said, quote=True)

        open_, stop = label(self.t("labs.action.open")), label(self.t("labs.action.stop"))
        start, delete = label(self.t("labs.action.start")), label(self.t("workloads.action.delete"))
        return f"""
<q-td :props="props">
  <div class="row items-center justify-end no-wrap q-gutter-xs">
    <q-btn dense no-caps no-wrap size="sm" color="primary" class="q-px-sm" icon="open_in_new"
      label="{open_}" type="a"
      :href="props.row.url" target="_blank" rel="noopener" :disable="!props.row.openable"
      :data-testid="'open-' + props.row.name" />
    <q-btn v-if="props.row.stopped" flat dense no-caps no-wrap size="sm" icon="play_arrow" label="{start}"
      @click="() => $parent.$emit('start', props.row.name)" />
    <q-btn v-else flat dense no-caps no-wrap size="sm" icon="stop" label="{stop}"
      @click="() => $parent.$emit('stop', props.row.name)" />
    <q-btn flat dense no-caps no-wrap size="sm" color="negative" icon="delete" label="{delete}"
      @click="() => $parent.$emit('delete', props.row.name)" />
  </div>
</q-td>
"""

    def _on(self, handler: Callable[[str], Any]) -> Callable[[events.GenericEventArguments], Any]:
        async def handle(event: events.GenericEventArguments) -> None:
            if isinstance(event.args, str):
                await handler(event.args)

        return handle

    # -- row actions ---------------------------------------------------------------------------------

    async def stop(self, name: str) -> None:
        await self._act(name, "stop")

    async def start(self, name: str) -> None:
        await self._act(name, "start")

    async def _act(self, name: str, action: str) -> None:
        labs = context.services().labs
        run = labs.stop if action == "stop" else labs.start
        try:
            await run(self.who.principal, self.project, name)
        except Exception as exc:
            ui.notify(problem_text(self.t, exc), type="negative", multi_line=True)
            return
        ui.notify(self.t(f"labs.done.{action}", name=name))
        await self.refresh()

    async def ask_delete(self, name: str) -> None:
        if name not in self.shown:
            return
        if self._dialog is not None:
            self._dialog.delete()
        self._dialog = ui.dialog()
        confirm_delete(
            self.t,
            self._dialog,
            title=self.t("labs.delete.title", name=name),
            body=self.t("labs.delete.body"),
            delete=lambda: context.services().labs.delete(self.who.principal, self.project, name),
            done=self.t("labs.done.deleted", name=name),
            after=self.refresh,
        )

    # -- create --------------------------------------------------------------------------------------

    async def _form(self) -> None:
        with ui.card().classes("w-full max-w-4xl mt-4 gap-2").props("flat bordered").mark("lab-form"):
            ui.label(self.t("labs.create.title")).classes("text-lg font-semibold")
            errors = FieldErrors(self.t, "lab")
            with ui.grid(columns=2).classes("w-full gap-x-4 gap-y-1"):
                form = await self._fields(errors)
            with ui.row().classes("w-full justify-end"):
                create = ui.button(self.t("labs.action.create"), icon="science")
                create.props("no-caps").mark("lab-create")

        async def submit() -> None:
            errors.clear()
            body = {
                "name": str(form.name.value or "").strip(),
                "kind": form.kind.value,
                "accelerator": {"device_type": form.accelerator.value, "count": as_int(form.count.value)},
                "storage_gib": as_int(form.storage.value),
            }
            create.disable()
            try:
                request = LabRequest.model_validate(body)
                created = await context.services().labs.create(self.who.principal, self.project, request)
            except Exception as exc:
                errors.show(exc)
                form.accelerator.warn()  # a refusal of the count takes the red warning's place
                return
            finally:
                create.enable()
            ui.notify(self.t("labs.done.created", name=created.name), type="positive")
            form.name.set_value("")
            await self.refresh()

        create.on_click(submit)

    async def _fields(self, errors: FieldErrors) -> _LabForm:
        """The inputs of the create form, each with the slot its errors show in; the count beside the
        Accelerator drop-down, its warning under it."""
        with ui.column().classes("gap-1"):
            name = ui.input(self.t("workloads.field.name"), placeholder="my-notebook")
            name.classes("w-full").props("outlined dense").mark("lab-name")
            errors.slot("name")
        with ui.column().classes("gap-1"):
            with ui.row().classes("items-center gap-3 h-10"):
                ui.label(self.t("labs.field.kind")).classes("text-slate-700")
                kind = ui.toggle(dict(KIND_NAMES), value="jupyter").props("no-caps").mark("lab-kind")
            errors.slot("kind")
        with ui.column().classes("gap-1"):
            accelerator = AcceleratorPicker(self.who.principal, self.t, "lab-accelerator", self.project)
            await accelerator.refresh()
            self.accelerator = accelerator
            errors.slot("accelerator.device_type")
        with ui.column().classes("gap-1"):
            count = ui.number(self.t("workloads.field.count"), value=1, min=1, step=1)
            count.classes("w-full").props("outlined dense").mark("lab-count")
            errors.slot("accelerator.count")
            accelerator.watch(count, errors.fields["accelerator.count"])
        with ui.column().classes("gap-1"):
            storage = ui.number(
                self.t("labs.field.storage"), value=DEFAULT_STORAGE_GIB, min=1, max=MAX_STORAGE_GIB
            )
            storage.classes("w-full").props("outlined dense").mark("lab-storage")
            errors.slot("storage_gib")
        return _LabForm(name, kind, accelerator, count, storage)


@dataclass(frozen=True)
class _LabForm:
    name: ui.input
    kind: ui.toggle
    accelerator: AcceleratorPicker
    count: ui.number
    storage: ui.number
