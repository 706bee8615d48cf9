"""Workloads → Deployments: a project's inference deployments, their status (and why one waits), and
a form that creates one on an accelerator the cluster has. The page is the one workload page
(`nufi.ui.parts.workload_page`) over this kind: its columns and rows, Scale (the replica count asked in
a dialog), and the create form's fields beyond the name and the accelerator.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from nufi.auth import Principal
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.workload_accelerators import quota_warning, whole
from nufi.ui.parts.workload_forms import (
    FieldErrors,
    accelerator_text,
    as_int,
    problem_text,
    workload_cells,
)
from nufi.ui.parts.workload_page import RowButton, WorkloadKind, WorkloadPage
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
    await WorkloadPage(visit, Deployments()).build(visit.param("project"))


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


@dataclass(frozen=True)
class _Inputs:
    image: ui.input
    args: ui.input
    replicas: ui.number
    port: ui.number
    readiness: ui.input
    env: ui.textarea


_Page = WorkloadPage[DeploymentView, _Inputs]


async def _ask_scale(page: _Page, name: str) -> None:
    """The replica count asked in a dialog, then applied."""
    shown = page.shown.get(name)
    if shown is None:
        return
    t = page.t
    with page.new_dialog() as dialog, ui.card().classes("min-w-[24rem]").mark("scale-dialog"):
        ui.label(t("deployments.scale.title", name=name)).classes("text-lg font-semibold")
        replicas = ui.number(
            t("deployments.field.replicas"), value=shown.replicas, min=0, max=MAX_REPLICAS, step=1
        )
        replicas.classes("w-full").props("outlined dense").mark("scale-replicas")
        fit = ui.label("").classes("text-negative text-caption -mt-1").mark("scale-fit")
        fit.props('role="status" aria-live="polite" data-testid="scale-fit"')
        fit.set_visibility(False)
        error = ui.label("").classes("text-negative text-caption").mark("scale-error")
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button(t("workloads.action.cancel"), on_click=dialog.close).props("flat no-caps")
            apply = ui.button(t("deployments.action.apply")).props("no-caps").mark("scale-apply")

    def warn() -> None:
        # Before Apply: the replicas added against the quota's room (those it has are in its use).
        offer = page.accelerator.offers.get(shown.device_type) if page.accelerator else None
        wanted = whole(replicas.value)
        warning = None
        if offer is not None and wanted is not None:
            warning = quota_warning(t, offer, shown.count, wanted, counted=shown.replicas)
        fit.set_text(warning.text if warning else "")
        fit.set_visibility(warning is not None)
        error.set_text("")

    replicas.on_value_change(lambda _: warn())

    async def go() -> None:
        count = as_int(replicas.value)
        if not isinstance(count, int) or not 0 <= count <= MAX_REPLICAS:
            error.set_text(t("deployments.scale.range", most=MAX_REPLICAS))
            return
        try:
            await context.services().deployments.scale(page.principal, page.project, name, count)
        except Exception as exc:  # every refusal is shown; the log has the unexpected ones
            error.set_text(problem_text(t, exc))
            return
        dialog.close()
        ui.notify(t("deployments.done.scaled", name=name, replicas=count))
        await page.refresh()

    apply.on_click(go)
    dialog.open()


class Deployments(WorkloadKind[DeploymentView, _Inputs]):
    path = PATH
    marker = "deployments"
    form_marker = "deployment-form"
    prefix = "dep"
    create_icon = "rocket_launch"
    area = "deployments"
    column_names = COLUMNS
    name_placeholder = "llm-chat"
    buttons = ((RowButton("deployments.action.scale", "tune", "scale"), _ask_scale),)

    async def read(self, principal: Principal, project: str) -> Sequence[DeploymentView]:
        return await context.services().deployments.list(principal, project)

    def row(self, t: Translator, names: dict[str, str], item: DeploymentView) -> dict[str, Any]:
        nodes = sorted({pod.node for pod in item.pods if pod.node})
        cells: dict[str, Any] = workload_cells(t, item.name, item.status, item.reason, item.created_at)
        thermal = [f"{pod.name}: {_thermal(t, pod)}" for pod in item.pods if pod.thermal_reason]
        if not cells["reason"] and thermal:
            cells["reason"] = t("deployments.thermal", reason="; ".join(thermal))
        return cells | {
            "ready": f"{item.ready_replicas} / {item.replicas}",
            "replicas": item.replicas,
            "accelerator": accelerator_text(names, item.device_type, item.count),
            "resource_key": item.resource_key,
            "nodes": ", ".join(nodes) or "—",
            "image": item.image,
        }

    async def delete(self, principal: Principal, project: str, name: str) -> None:
        await context.services().deployments.delete(principal, project, name)

    def delete_body(self, t: Translator, project: str) -> str:
        return t("deployments.delete.body", project=project)

    async def fields(self, page: _Page, errors: FieldErrors) -> _Inputs:
        """The image, the accelerator and its count, then the arguments, replicas, port, readiness path
        and environment, each with the slot its errors show in."""
        t = page.t
        settings = context.services().settings
        with ui.column().classes("gap-1"):
            image = ui.input(
                t("deployments.field.image"),
                value=settings.deployment_default_image or "",
                placeholder=IMAGE_PLACEHOLDER,
            )
            page.cell(image.props('data-testid="dep-image"'), errors, "image", "image")
        await page.accelerator_fields(errors)
        with ui.column().classes("gap-1"):
            args = ui.input(
                t("deployments.field.args"),
                value=shlex.join(settings.deployment_default_args),
                placeholder="--model tiny --max-batch 8",
            )
            page.cell(args.props('data-testid="dep-args"'), errors, "args", "args")
        with ui.column().classes("gap-1"):
            replicas = ui.number(t("deployments.field.replicas"), value=1, min=0, max=MAX_REPLICAS, step=1)
            page.cell(replicas, errors, "replicas", "replicas")
        if page.accelerator is not None:
            # The quota counts every replica's devices: the count's warning multiplies by them.
            page.accelerator.times(replicas, errors.fields["replicas"])
        with ui.column().classes("gap-1"):
            port = ui.number(t("deployments.field.port"), value=DEFAULT_PORT, min=1, max=65535)
            page.cell(port, errors, "port", "port")
        with ui.column().classes("gap-1"):
            readiness = ui.input(t("deployments.field.readiness"), value=DEFAULT_READINESS_PATH)
            readiness.classes("w-full").props("outlined dense").mark("dep-readiness")
            ui.label(t("deployments.field.readiness_hint")).classes("text-caption text-slate-600")
            errors.slot("readiness_path")
        with ui.column().classes("gap-1"):
            env = ui.textarea(t("deployments.field.env"), placeholder="MODEL_NAME=tiny\nLOG_LEVEL=info")
            env.classes("w-full").props("outlined dense autogrow").mark("dep-env")
            errors.slot("env")
        return _Inputs(image, args, replicas, port, readiness, env)

    def request(self, t: Translator, errors: FieldErrors, own: _Inputs) -> dict[str, Any] | None:
        parsed = parse_env(str(own.env.value or ""))
        if isinstance(parsed, str):
            errors.at("env", t("deployments.env.bad_line", line=parsed))
            return None
        try:
            arguments = shlex.split(str(own.args.value or ""))
        except ValueError as exc:
            # shlex's own words are English: an unclosed quote, or a backslash with nothing after it.
            unclosed = "quotation" in str(exc)
            errors.at(
                "args",
                t("deployments.args.unclosed_quote") if unclosed else t("deployments.args.lone_backslash"),
            )
            return None
        path = str(own.readiness.value or "").strip()
        return {
            "image": str(own.image.value or "").strip(),
            "args": arguments or None,
            "replicas": as_int(own.replicas.value),
            "port": as_int(own.port.value),
            "readiness_path": path or None,
            "env": parsed,
        }

    async def create(self, principal: Principal, project: str, body: dict[str, Any]) -> str:
        request = DeploymentCreate.model_validate(body)
        return (await context.services().deployments.create(principal, project, request)).name


def _thermal(t: Translator, pod: PodView) -> str | None:
    """Why thermal control keeps traffic off a pod (or on, kept), in the reader's language when thermal
    control wrote it as a message; its English words from an older NuFi otherwise."""
    if pod.thermal_message is None:
        return pod.thermal_reason
    return t.message(pod.thermal_message.code, pod.thermal_message.params)
