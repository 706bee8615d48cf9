"""Admin → Devices: the device list with its per-row actions (enable / disable, edit in the wizard,
delete a custom type, reset an official type to its preset).

Every action goes through the catalog service with the revision the row showed, so a type someone else
changed since the list was read is a conflict, said so next to the row (or in the dialog) with a button
that reads the list again. Every error the service raises is shown in the person's language, with the
service's own words beneath; after each action the list is read again and a notification confirms it.
The catalog writes the audit record of each action.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nicegui import events, ui

from nufi.auth import Principal
from nufi.cluster import KUBERNETES
from nufi.devices.catalog import CatalogEntry
from nufi.devices.spec import DeviceType, DeviceTypeUpdate
from nufi.errors import Conflict, DependencyUnavailable, NotFound, ValidationFailed
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.errors import told
from nufi.ui.wizard.form import edit_url

COLUMNS = ("name", "vendor", "resource_key", "kind", "nodes", "capacity", "enabled")


@dataclass(frozen=True)
class _Question:
    """The texts of a confirmation: its title (of the type's name and id), body, button and done
    (of the type's name)."""

    title: str
    body: str
    action: str
    done: str


_DELETE = _Question(
    "devices.delete.title", "devices.delete.body", "devices.action.delete", "devices.done.deleted"
)
_RESET = _Question("devices.reset.title", "devices.reset.body", "devices.action.reset", "devices.done.reset")


@dataclass(frozen=True)
class Problem:
    """What the person is told of a failed action: a headline in their language, the service's detail,
    and whether reading the list again (`reload`) or saving without the checks (`force`) may help."""

    headline: str
    detail: str = ""
    reload: bool = False
    force: bool = False


def problem_of(exc: Exception, t: Translator, shown: DeviceType | None, *, enabling: bool = False) -> Problem:
    """The service's error, as the person reads it (never a stack trace: the log has the unexpected)."""
    if isinstance(exc, Conflict) and "current_revision" in exc.extra:
        shown_revision = shown.revision if shown is not None else exc.extra.get("expected_revision", "?")
        return Problem(
            t("devices.error.stale", current=exc.extra["current_revision"], shown=shown_revision), reload=True
        )
    said = told(t, exc, "devices")
    # Without Prometheus the metrics can go unchecked; without the cluster nothing can be saved.
    forcible = isinstance(exc, ValidationFailed) or (
        isinstance(exc, DependencyUnavailable) and exc.dependency != KUBERNETES
    )
    return Problem(said.headline, said.detail, reload=isinstance(exc, NotFound), force=enabling and forcible)


def with_enabled(device_type: DeviceType, enabled: bool) -> DeviceTypeUpdate:
    """The whole type as the row showed it, `enabled` changed, sent with the row's revision."""
    fields = device_type.model_dump(mode="json", exclude={"id", "kind", "revision"})
    return DeviceTypeUpdate.model_validate({**fields, "enabled": enabled, "revision": device_type.revision})


def _actions_slot(t: Translator) -> str:
    template = """
<q-td :props="props">
  <div class="row items-center no-wrap q-gutter-xs">
    <q-toggle dense :model-value="props.row.enabled_on" aria-label="@toggle@"
      @update:model-value="() => $parent.$emit('toggle', props.row.id)" />
    <q-btn flat dense no-caps size="sm" icon="edit" label="@edit@" type="a" :href="props.row.edit_url" />
    <q-btn v-if="props.row.deletable" flat dense no-caps size="sm" color="negative" icon="delete"
      label="@delete@" @click="() => $parent.$emit('delete', props.row.id)" />
    <q-btn v-if="props.row.official" flat dense no-caps size="sm" icon="restart_alt" label="@reset@"
      :disable="!props.row.resettable" @click="() => $parent.$emit('reset', props.row.id)" />
  </div>
  <div v-if="props.row.note" role="alert" class="text-negative text-caption"
    style="white-space: normal; max-width: 28rem">
    <div class="text-weight-medium">{{ props.row.note }}</div>
    <div v-if="props.row.note_detail">{{ props.row.note_detail }}</div>
    <q-btn v-if="props.row.note_reload" outline dense no-caps size="sm" icon="refresh" label="@reload@"
      @click="() => $parent.$emit('reload', props.row.id)" />
    <q-btn v-if="props.row.note_force" outline dense no-caps size="sm" label="@force@"
      @click="() => $parent.$emit('force', props.row.id)" />
  </div>
</q-td>
"""
    labels = {
        "toggle": t("devices.action.toggle"),
        "edit": t("wizard.edit_mode.action"),
        "delete": t("devices.action.delete"),
        "reset": t("devices.action.reset"),
        "reload": t("devices.action.reload"),
        "force": t("devices.action.enable_anyway"),
    }
    for name, label in labels.items():
        template = template.replace(f"@{name}@", html.escape(label, quote=True))
    return template


class DeviceList:
    """The device table of one open page, with what each row showed and what went wrong with it."""

    def __init__(self, principal: Principal, t: Translator) -> None:
        self.principal = principal
        self.t = t
        self.shown: dict[str, DeviceType] = {}
        self.notes: dict[str, Problem] = {}
        self._dialog: ui.dialog | None = None
        self.list_error = ui.label("").classes("text-red-700").mark("devices-error")
        self.list_error.set_visibility(False)
        self.table = ui.table(columns=self._columns(), rows=[], row_key="id")
        self.table.classes("w-full").props('dense flat bordered data-testid="device-types"')
        self.table.add_slot("body-cell-actions", _actions_slot(t))
        self.table.on("toggle", self._on(self.toggle))
        self.table.on("force", self._on(self.enable_anyway))
        self.table.on("delete", self._on(self.ask_delete))
        self.table.on("reset", self._on(self.ask_reset))
        self.table.on("reload", self._on(lambda _id: self.reload()))

    # -- the list ------------------------------------------------------------------------------------

    async def reload(self) -> None:
        """Read the list again; what went wrong with the rows before no longer applies."""
        self.notes.clear()
        await self.refresh()

    async def refresh(self) -> None:
        try:
            entries = await context.services().catalog.list_with_inventory(self.principal)
        except Exception as exc:
            problem = problem_of(exc, self.t, None)
            self.list_error.set_text(f"{problem.headline} {problem.detail}".strip())
            self.list_error.set_visibility(True)
            return
        self.list_error.set_visibility(False)
        self.shown = {entry.device_type.id: entry.device_type for entry in entries}
        self.notes = {key: note for key, note in self.notes.items() if key in self.shown}
        self.table.rows = [self._row(entry) for entry in entries]
        self.table.update()

    def _show_notes(self) -> None:
        for row in self.table.rows:
            row.update(self._note_fields(row["id"]))
        self.table.update()

    # -- enable / disable ----------------------------------------------------------------------------

    async def toggle(self, device_type_id: str) -> None:
        shown = self.shown.get(device_type_id)
        if shown is not None:
            # Turning a type off needs none of its checks; turning it on runs them.
            await self._set_enabled(shown, not shown.enabled, force=shown.enabled)

    async def enable_anyway(self, device_type_id: str) -> None:
        shown = self.shown.get(device_type_id)
        if shown is not None:
            await self._set_enabled(shown, True, force=True)

    async def _set_enabled(self, shown: DeviceType, enabled: bool, *, force: bool) -> None:
        try:
            await context.services().catalog.update(
                self.principal, shown.id, with_enabled(shown, enabled), force=force
            )
        except Exception as exc:
            self._failed(shown, exc, enabling=enabled and not force)
            self._show_notes()  # the toggle goes back to what the row showed
            return
        self.notes.pop(shown.id, None)
        ui.notify(self.t("devices.done.enabled" if enabled else "devices.done.disabled", name=shown.name))
        await self.refresh()

    def _failed(self, shown: DeviceType, exc: Exception, *, enabling: bool = False) -> Problem:
        problem = problem_of(exc, self.t, shown, enabling=enabling)
        self.notes[shown.id] = problem
        return problem

    # -- delete and reset, each after a confirmation -------------------------------------------------

    async def ask_delete(self, device_type_id: str) -> None:
        shown = self.shown.get(device_type_id)
        if shown is None or shown.kind != "custom":
            return

        async def delete() -> None:
            await context.services().catalog.delete(self.principal, shown.id, revision=shown.revision)

        self._confirm(shown, _DELETE, delete)

    async def ask_reset(self, device_type_id: str) -> None:
        shown = self.shown.get(device_type_id)
        if shown is None or shown.kind != "official":
            return

        async def reset() -> None:
            await context.services().catalog.reset(self.principal, shown.id)

        self._confirm(shown, _RESET, reset)

    def _confirm(self, shown: DeviceType, asked: _Question, run: Callable[[], Awaitable[None]]) -> None:
        """Ask `asked` of the type `shown`; its confirm button calls `run`, a refusal is shown beside it."""
        title = self.t(asked.title, name=shown.name, id=shown.id)
        body, action, done = self.t(asked.body), self.t(asked.action), self.t(asked.done, name=shown.name)
        if self._dialog is not None:
            self._dialog.delete()
        with ui.dialog() as dialog, ui.card().classes("max-w-lg").mark("device-dialog"):
            ui.label(title).classes("text-lg font-semibold").mark("dialog-title")
            ui.label(body)
            errors = ui.column().classes("gap-1").mark("dialog-error")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(self.t("devices.action.cancel"), on_click=dialog.close).props("flat no-caps").mark(
                    "dialog-cancel"
                )
                confirm = ui.button(action).props("no-caps color=negative").mark("dialog-confirm")
        self._dialog = dialog

        async def reload() -> None:
            dialog.close()
            await self.reload()

        async def go() -> None:
            confirm.disable()
            try:
                await run()
            except Exception as exc:
                problem = self._failed(shown, exc)
                errors.clear()
                with errors:
                    ui.label(problem.headline).classes("text-red-700 font-medium")
                    if problem.detail:
                        ui.label(problem.detail).classes("text-red-700 text-sm")
                    if problem.reload:
                        ui.button(self.t("devices.action.reload"), icon="refresh", on_click=reload).props(
                            "outline no-caps"
                        ).mark("dialog-reload")
                self._show_notes()
                return
            finally:
                confirm.enable()
            self.notes.pop(shown.id, None)
            dialog.close()
            ui.notify(done)
            await self.refresh()

        confirm.on_click(go)
        dialog.open()

    # -- rows ----------------------------------------------------------------------------------------

    def _on(self, handler: Callable[[str], Awaitable[None]]) -> Callable[[events.GenericEventArguments], Any]:
        async def handle(event: events.GenericEventArguments) -> None:
            if isinstance(event.args, str):
                await handler(event.args)

        return handle

    def _columns(self) -> list[dict[str, Any]]:
        columns = [
            {"name": name, "label": self.t(f"devices.column.{name}"), "field": name, "align": "left"}
            for name in COLUMNS
        ]
        columns.append(
            {"name": "actions", "label": self.t("devices.column.actions"), "field": "id", "align": "left"}
        )
        return columns

    def _row(self, entry: CatalogEntry) -> dict[str, Any]:
        device_type, inventory = entry.device_type, entry.inventory
        if inventory is None:
            problem = entry.inventory_problem
            why = self.t.message(problem.code, problem.params) if problem else entry.inventory_error or ""
            counts = self.t("devices.inventory_error", detail=why)
            nodes = "—"
        else:
            counts = f"{inventory.capacity} / {inventory.allocatable} / {inventory.allocated}"
            nodes = str(inventory.nodes_with_devices)
        official = device_type.kind == "official"
        return {
            "id": device_type.id,
            "name": device_type.name,
            "vendor": device_type.vendor,
            "resource_key": device_type.resource_key,
            "kind": self.t(f"devices.kind.{device_type.kind}"),
            "nodes": nodes,
            "capacity": counts,
            "enabled": "✓" if device_type.enabled else "—",
            "revision": device_type.revision,
            "enabled_on": device_type.enabled,
            "official": official,
            "deletable": not official,
            "edit_url": edit_url(device_type.id),
            # An official type at revision 1 is its preset: there is nothing to reset.
            "resettable": official and device_type.revision > 1,
            **self._note_fields(device_type.id),
        }

    def _note_fields(self, device_type_id: str) -> dict[str, Any]:
        note = self.notes.get(device_type_id)
        if note is None:
            return {"note": "", "note_detail": "", "note_reload": False, "note_force": False}
        return {
            "note": note.headline,
            "note_detail": note.detail,
            "note_reload": note.reload,
            "note_force": note.force,
        }
