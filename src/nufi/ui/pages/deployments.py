"""Workloads → Deployments: a project's inference deployments, their status (and why one waits), and
a form that creates one on an accelerator the cluster has.

The page reads the list and the accelerators again on one timer and changes the rows and the
drop-down's counts in place: what the person types in the form, and an open dialog, stay as they are.

Row buttons live in the table's Quasar slot and emit `scale` / `delete` with the row's name; scaling
asks for the replica count in a dialog, deleting asks for a confirmation naming the deployment.
"""

from __future__ import annotations

import html
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from nicegui import events, ui

from nufi.ui import context
from nufi.ui.i18n import Translator
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
from nufi.workloads.deployments.spec import (
    DEFAULT_PORT,
    DEFAULT_READINESS_PATH,
    MAX_REPLICAS,
    DeploymentCreate,
)
from nufi.workloads.deployments.view import DeploymentView, PodView

PATH = "/deployments"
COLUMNS = ("name", "status", "ready", "accelerator", "nodes", "reason", "age")
IMAGE_PLACEHOLDER = "registry.example.com/team/llm-server:1.0"


async def build(visit: Visit) -> None:
    await DeploymentsPage(visit).build(visit.param("project"))


def parse_env(lines: str) -> list[dict[str, str]] | str:
    """`KEY=VALUE` lines (blank lines skipped) as env entries, or what is wrong with the first bad one."""
    env = []
    for number, line in enumerate(lines.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            return f"{number}: {line.strip()!r}"
        env.append({"name": name.strip(), "value": value})
    return env


class DeploymentsPage:
    def __init__(self, visit: Visit) -> None:
        self.who = visit.who
        self.t = visit.t
        self.project = ""
        self.shown: dict[str, DeploymentView] = {}
        self.names: dict[str, str] = {}
        self.accelerator: AcceleratorPicker | None = None
        self._dialog: ui.dialog | None = None

    async def build(self, asked: str) -> None:
        with ui.row().classes("items-center justify-between w-full"):
            ui.label(self.t("deployments.title")).classes("text-2xl font-semibold")
        chosen = await shown_project(self.who.principal, self.t, PATH, asked, "deployments-error")
        if chosen is None:
            return
        self.project = chosen
        self.list_error, self.table = workload_table(
            self.t,
            self._columns(),
            marker="deployments-error",
            empty=self.t("deployments.empty"),
            actions=self._actions_slot(),
        )
        self.table.on("scale", self._on(self.ask_scale))
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
        views = await fill_table(
            self.t,
            self.list_error,
            self.table,
            lambda: context.services().deployments.list(self.who.principal, self.project),
            self._row,
        )
        if views is not None:
            self.shown = {view.name: view for view in views}

    def _row(self, view: DeploymentView) -> dict[str, Any]:
        nodes = sorted({pod.node for pod in view.pods if pod.node})
        reason = reason_cells(self.t, view.reason)
        thermal = [f"{pod.name}: {_thermal(self.t, pod)}" for pod in view.pods if pod.thermal_reason]
        if not reason["reason"] and thermal:
            reason["reason"] = self.t("deployments.thermal", reason="; ".join(thermal))
        return {
            "name": view.name,
            **status_cells(self.t, view.status),
            "ready": f"{view.ready_replicas} / {view.replicas}",
            "replicas": view.replicas,
            "accelerator": accelerator_text(self.names, view.device_type, view.count),
            "resource_key": view.resource_key,
            "nodes": ", ".join(nodes) or "—",
            **reason,
            **age_cells(self.t, view.created_at),
            "image": view.image,
        }

    def _columns(self) -> list[dict[str, Any]]:
        columns = [
            {"name": name, "label": self.t(f"deployments.column.{name}"), "field": name, "align": "left"}
            for name in COLUMNS
        ]
        columns.append({"name": "actions", "label": "", "field": "name", "align": "right"})
        return columns

    def _actions_slot(self) -> str:
        scale = html.escape(self.t("deployments.action.scale"), quote=True)
        delete = html.escape(self.t("workloads.action.delete"), quote=True)
        return f"""
<q-td :props="props">
  <div class="row items-center justify-end no-wrap q-gutter-xs">
    <q-btn flat dense no-caps no-wrap size="sm" icon="tune" label="{scale}"
      @click="() => $parent.$emit('scale', props.row.name)" />
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

    # -- scale and delete ----------------------------------------------------------------------------

    def _new_dialog(self) -> ui.dialog:
        if self._dialog is not None:
            self._dialog.delete()
        self._dialog = ui.dialog()
        return self._dialog

    async def ask_scale(self, name: str) -> None:
        shown = self.shown.get(name)
        if shown is None:
            return
        with self._new_dialog() as dialog, ui.card().classes("min-w-[24rem]").mark("scale-dialog"):
            ui.label(self.t("deployments.scale.title", name=name)).classes("text-lg font-semibold")
            replicas = ui.number(
                self.t("deployments.field.replicas"), value=shown.replicas, min=0, max=MAX_REPLICAS, step=1
            )
            replicas.classes("w-full").props("outlined dense").mark("scale-replicas")
            error = ui.label("").classes("text-negative text-caption").mark("scale-error")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(self.t("workloads.action.cancel"), on_click=dialog.close).props("flat no-caps")
                apply = ui.button(self.t("deployments.action.apply")).props("no-caps").mark("scale-apply")

        async def go() -> None:
            count = as_int(replicas.value)
            if not isinstance(count, int) or not 0 <= count <= MAX_REPLICAS:
                error.set_text(self.t("deployments.scale.range", most=MAX_REPLICAS))
                return
            try:
                await context.services().deployments.scale(self.who.principal, self.project, name, count)
            except Exception as exc:
                error.set_text(problem_text(self.t, exc))
                return
            dialog.close()
            ui.notify(self.t("deployments.done.scaled", name=name, replicas=count))
            await self.refresh()

        apply.on_click(go)
        dialog.open()

    async def ask_delete(self, name: str) -> None:
        if name not in self.shown:
            return
        confirm_delete(
            self.t,
            self._new_dialog(),
            title=self.t("deployments.delete.title", name=name),
            body=self.t("deployments.delete.body", project=self.project),
            delete=lambda: context.services().deployments.delete(self.who.principal, self.project, name),
            done=self.t("deployments.done.deleted", name=name),
            after=self.refresh,
        )

    # -- create --------------------------------------------------------------------------------------

    async def _form(self) -> None:
        with ui.card().classes("w-full max-w-4xl mt-4 gap-2").props("flat bordered").mark("deployment-form"):
            ui.label(self.t("deployments.create.title")).classes("text-lg font-semibold")
            errors = FieldErrors(self.t, "dep")
            with ui.grid(columns=2).classes("w-full gap-x-4 gap-y-1"):
                form = await self._fields(errors)
            with ui.row().classes("w-full justify-end"):
                create = ui.button(self.t("deployments.action.create"), icon="rocket_launch")
                create.props("no-caps").mark("dep-create")

        async def submit() -> None:
            body = self._body(form)
            if body is None:
                return
            create.disable()
            try:
                request = DeploymentCreate.model_validate(body)
                created = await context.services().deployments.create(
                    self.who.principal, self.project, request
                )
            except Exception as exc:
                errors.show(exc)
                form.accelerator.warn()  # a refusal of the count takes the red warning's place
                return
            finally:
                create.enable()
            ui.notify(self.t("deployments.done.created", name=created.name), type="positive")
            form.name.set_value("")
            await self.refresh()

        create.on_click(submit)

    async def _fields(self, errors: FieldErrors) -> _Form:
        """The inputs of the create form, each with the slot its errors show in; the count beside the
        Accelerator drop-down, its warning under it."""
        settings = context.services().settings

        def cell(entry: _Input, marker: str, slot: str) -> _Input:
            entry.classes("w-full").props("outlined dense").mark(marker)
            errors.slot(slot)
            return entry

        with ui.column().classes("gap-1"):
            name = cell(ui.input(self.t("workloads.field.name"), placeholder="llm-chat"), "dep-name", "name")
        with ui.column().classes("gap-1"):
            image = ui.input(
                self.t("deployments.field.image"),
                value=settings.deployment_default_image or "",
                placeholder=IMAGE_PLACEHOLDER,
            )
            cell(image.props('data-testid="dep-image"'), "dep-image", "image")
        with ui.column().classes("gap-1"):
            accelerator = AcceleratorPicker(self.who.principal, self.t, "dep-accelerator", self.project)
            await accelerator.refresh()
            self.accelerator = accelerator
            errors.slot("accelerator.device_type")
        with ui.column().classes("gap-1"):
            count = ui.number(self.t("workloads.field.count"), value=1, min=1, step=1)
            cell(count, "dep-count", "accelerator.count")
            accelerator.watch(count, errors.fields["accelerator.count"])
        with ui.column().classes("gap-1"):
            args = ui.input(
                self.t("deployments.field.args"),
                value=shlex.join(settings.deployment_default_args),
                placeholder="--model tiny --max-batch 8",
            )
            cell(args.props('data-testid="dep-args"'), "dep-args", "args")
        with ui.column().classes("gap-1"):
            replicas = ui.number(
                self.t("deployments.field.replicas"), value=1, min=0, max=MAX_REPLICAS, step=1
            )
            cell(replicas, "dep-replicas", "replicas")
        with ui.column().classes("gap-1"):
            port = ui.number(self.t("deployments.field.port"), value=DEFAULT_PORT, min=1, max=65535)
            cell(port, "dep-port", "port")
        with ui.column().classes("gap-1"):
            readiness = ui.input(self.t("deployments.field.readiness"), value=DEFAULT_READINESS_PATH)
            readiness.classes("w-full").props("outlined dense").mark("dep-readiness")
            ui.label(self.t("deployments.field.readiness_hint")).classes("text-caption text-slate-600")
            errors.slot("readiness_path")
        with ui.column().classes("gap-1"):
            env = ui.textarea(self.t("deployments.field.env"), placeholder="MODEL_NAME=tiny\nLOG_LEVEL=info")
            env.classes("w-full").props("outlined dense autogrow").mark("dep-env")
            errors.slot("env")
        return _Form(errors, name, image, args, accelerator, count, replicas, port, readiness, env)

    def _body(self, form: _Form) -> dict[str, Any] | None:
        """The request the form says; None, with the errors shown, when a line of it cannot be read."""
        errors = form.errors
        errors.clear()
        parsed = parse_env(str(form.env.value or ""))
        if isinstance(parsed, str):
            errors.at("env", self.t("deployments.env.bad_line", line=parsed))
            return None
        try:
            arguments = shlex.split(str(form.args.value or ""))
        except ValueError as exc:
            # shlex's own words are English: an unclosed quote, or a backslash with nothing after it.
            unclosed = "quotation" in str(exc)
            errors.at(
                "args",
                self.t("deployments.args.unclosed_quote")
                if unclosed
                else self.t("deployments.args.lone_backslash"),
            )
            return None
        path = str(form.readiness.value or "").strip()
        return {
            "name": str(form.name.value or "").strip(),
            "image": str(form.image.value or "").strip(),
            "args": arguments or None,
            "accelerator": {"device_type": form.accelerator.value, "count": as_int(form.count.value)},
            "replicas": as_int(form.replicas.value),
            "port": as_int(form.port.value),
            "readiness_path": path or None,
            "env": parsed,
        }


_Input = TypeVar("_Input", ui.input, ui.number)


@dataclass(frozen=True)
class _Form:
    errors: FieldErrors
    name: ui.input
    image: ui.input
    args: ui.input
    accelerator: AcceleratorPicker
    count: ui.number
    replicas: ui.number
    port: ui.number
    readiness: ui.input
    env: ui.textarea


def _thermal(t: Translator, pod: PodView) -> str | None:
    """Why thermal control keeps traffic off a pod (or on, kept), in the reader's language when thermal
    control wrote it as a message; its English words from an older NuFi otherwise."""
    if pod.thermal_message is None:
        return pod.thermal_reason
    return t.message(pod.thermal_message.code, pod.thermal_message.params)
