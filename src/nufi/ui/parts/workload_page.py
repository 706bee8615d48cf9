"""One workload page, whatever the kind: the project it lists, the table (status chip, reason, age,
the row's buttons), the confirmation before a delete, the create form's frame and the one timer that
reads the list and the accelerators again, changing rows and counts in place.

A kind (deployments, labs) describes only what is its own (`WorkloadKind`): its columns and rows, the
buttons of a row and what they do, the fields of its create form and the request they make, and the
calls of its service. Row buttons live in the table's Quasar slot and emit their event with the row's
name; the page calls the button's action with it.
"""

from __future__ import annotations

import html
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

from nicegui import events, ui

from nufi.auth import Principal
from nufi.ui.i18n import Translator
from nufi.ui.parts.workload_accelerators import AcceleratorPicker
from nufi.ui.parts.workload_forms import (
    REFRESH_SECONDS,
    FieldErrors,
    as_int,
    confirm_delete,
    fill_table,
    shown_project,
    type_names,
    workload_table,
)
from nufi.ui.skeleton import Visit

# The texts every kind has, each under the kind's own area ("deployments.title", "labs.title").
KindText = Literal[
    "title", "empty", "delete.title", "done.deleted", "create.title", "action.create", "done.created"
]


class Named(Protocol):
    @property
    def name(self) -> str: ...


Item = TypeVar("Item", bound=Named)
Inputs = TypeVar("Inputs")
_Entry = TypeVar("_Entry", ui.input, ui.number)


@dataclass(frozen=True)
class RowButton:
    """A button of every row: its text key and icon, the event it emits with the row's name (none
    for a link), and the Quasar attributes that give it its look and, when it has one, its condition."""

    label: str
    icon: str
    event: str | None = None
    look: str = "flat"
    attributes: str = ""

    def html(self, t: Translator) -> str:
        label = html.escape(t(self.label), quote=True)
        click = (
            f"\n      @click=\"() => $parent.$emit('{self.event}', props.row.name)\"" if self.event else ""
        )
        extra = f"\n      {self.attributes}" if self.attributes else ""
        return (
            f'    <q-btn {self.look} dense no-caps no-wrap size="sm" icon="{self.icon}" label="{label}"'
            f"{extra}{click} />\n"
        )


DELETE = RowButton("workloads.action.delete", "delete", "delete", look='flat color="negative"')


@dataclass(frozen=True)
class CreateForm(Generic[Inputs]):
    """The create form's inputs: those of every kind, and the kind's own (`own`)."""

    errors: FieldErrors
    name: ui.input
    accelerator: AcceleratorPicker
    count: ui.number
    own: Inputs


class WorkloadKind(ABC, Generic[Item, Inputs]):
    """What a workload page lists and creates, and how; the page does the rest."""

    path: str
    marker: str  # the list's markers: "<marker>-error", "<marker>-table"
    form_marker: str
    prefix: str  # the create form's markers: "<prefix>-name", "<prefix>-create", ...
    create_icon: str
    name_placeholder: str
    area: str  # the catalog's area of the kind's texts: "<area>.column.<name>", "<area>.<what>"
    column_names: tuple[str, ...]
    # The buttons before Delete, each with its action (Delete, last, asks first).
    buttons: tuple[tuple[RowButton, Callable[[WorkloadPage[Item, Inputs], str], Awaitable[None]] | None], ...]

    def slots(self, t: Translator) -> dict[str, str]:
        """The kind's own cell slots ("body-cell-<column>": its template), beside the shared ones."""
        return {}

    def columns(self, t: Translator) -> dict[str, str]:
        """Each column's field and its heading, in their order."""
        return {name: t(f"{self.area}.column.{name}") for name in self.column_names}

    @abstractmethod
    async def read(self, principal: Principal, project: str) -> Sequence[Item]: ...

    def text(self, t: Translator, what: KindText, **params: object) -> str:
        """The kind's own text `what`."""
        return t(f"{self.area}.{what}", **params)

    @abstractmethod
    def row(self, t: Translator, names: dict[str, str], item: Item) -> dict[str, Any]:
        """The row's cells: "name", the status, reason and age cells, and whatever its columns show."""

    @abstractmethod
    async def delete(self, principal: Principal, project: str, name: str) -> None: ...

    @abstractmethod
    def delete_body(self, t: Translator, project: str) -> str: ...

    @abstractmethod
    async def fields(self, page: WorkloadPage[Item, Inputs], errors: FieldErrors) -> Inputs:
        """The form's inputs after the name: the accelerator ones (`page.accelerator_fields`) among them."""

    @abstractmethod
    def request(self, t: Translator, errors: FieldErrors, own: Inputs) -> dict[str, Any] | None:
        """The request's fields of the kind's own inputs; None, with the errors shown, when one cannot
        be read."""

    @abstractmethod
    async def create(self, principal: Principal, project: str, body: dict[str, Any]) -> str:
        """Create what `body` asks for (its validation's refusals raised); the created one's name."""


class WorkloadPage(Generic[Item, Inputs]):
    """A kind's page for one visit: the list of the project, its row actions, the create form."""

    def __init__(self, visit: Visit, kind: WorkloadKind[Item, Inputs]) -> None:
        self.kind = kind
        self.principal = visit.who.principal
        self.t = visit.t
        self.cookies = visit.request.cookies
        self.project = ""
        self.shown: dict[str, Item] = {}
        self.names: dict[str, str] = {}
        self.accelerator: AcceleratorPicker | None = None
        self._count: ui.number | None = None
        self._dialog: ui.dialog | None = None

    async def build(self, asked: str) -> None:
        kind = self.kind
        with ui.row().classes("items-center justify-between w-full"):
            ui.label(kind.text(self.t, "title")).classes("text-2xl font-semibold")
        chosen = await shown_project(self.principal, self.t, kind.path, asked, f"{kind.marker}-error")
        if chosen is None:
            return
        self.project = chosen
        self.list_error, self.table = workload_table(
            self.t,
            self._columns(),
            marker=f"{kind.marker}-error",
            empty=kind.text(self.t, "empty"),
            actions=self._actions_slot(),
        )
        for name, slot in kind.slots(self.t).items():
            self.table.add_slot(name, slot)
        for button, action in (*kind.buttons, (DELETE, WorkloadPage.ask_delete)):
            if button.event is not None and action is not None:
                self.table.on(button.event, self._on(action))
        self.names = await type_names(self.principal)
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
        items = await fill_table(
            self.t,
            self.list_error,
            self.table,
            lambda: self.kind.read(self.principal, self.project),
            lambda item: self.kind.row(self.t, self.names, item),
        )
        if items is not None:
            self.shown = {item.name: item for item in items}

    def _columns(self) -> list[dict[str, Any]]:
        columns = [
            {"name": name, "label": label, "field": name, "align": "left"}
            for name, label in self.kind.columns(self.t).items()
        ]
        columns.append({"name": "actions", "label": "", "field": "name", "align": "right"})
        return columns

    def _actions_slot(self) -> str:
        buttons = "".join(button.html(self.t) for button, _ in self.kind.buttons) + DELETE.html(self.t)
        return f"""
<q-td :props="props">
  <div class="row items-center justify-end no-wrap q-gutter-xs">
{buttons}  </div>
</q-td>
"""

    def _on(
        self, action: Callable[[WorkloadPage[Item, Inputs], str], Awaitable[None]]
    ) -> Callable[[events.GenericEventArguments], Any]:
        async def handle(event: events.GenericEventArguments) -> None:
            if isinstance(event.args, str):
                await action(self, event.args)

        return handle

    # -- row actions ---------------------------------------------------------------------------------

    def new_dialog(self) -> ui.dialog:
        """A dialog in place of the one opened before (at most one is open)."""
        if self._dialog is not None:
            self._dialog.delete()
        self._dialog = ui.dialog()
        return self._dialog

    async def ask_delete(self, name: str) -> None:
        if name not in self.shown:
            return
        confirm_delete(
            self.t,
            self.new_dialog(),
            title=self.kind.text(self.t, "delete.title", name=name),
            body=self.kind.delete_body(self.t, self.project),
            delete=lambda: self.kind.delete(self.principal, self.project, name),
            done=self.kind.text(self.t, "done.deleted", name=name),
            after=self.refresh,
        )

    # -- create --------------------------------------------------------------------------------------

    def cell(self, entry: _Entry, errors: FieldErrors, field: str, slot: str) -> _Entry:
        """`entry` styled as the form's inputs, marked `<prefix>-<field>`, its errors' slot under it."""
        entry.classes("w-full").props("outlined dense").mark(f"{self.kind.prefix}-{field}")
        errors.slot(slot)
        return entry

    async def accelerator_fields(self, errors: FieldErrors) -> None:
        """The Accelerator drop-down, and the count beside it with the drop-down's warning under it."""
        with ui.column().classes("gap-1"):
            self.accelerator = AcceleratorPicker(
                self.principal, self.t, f"{self.kind.prefix}-accelerator", self.project, cookies=self.cookies
            )
            await self.accelerator.refresh()
            errors.slot("accelerator.device_type")
        with ui.column().classes("gap-1"):
            self._count = ui.number(self.t("workloads.field.count"), value=1, min=1, step=1)
            self.cell(self._count, errors, "count", "accelerator.count")
            self.accelerator.watch(self._count, errors.fields["accelerator.count"])

    async def _form(self) -> None:
        kind = self.kind
        with ui.card().classes("w-full max-w-4xl mt-4 gap-2").props("flat bordered").mark(kind.form_marker):
            ui.label(kind.text(self.t, "create.title")).classes("text-lg font-semibold")
            errors = FieldErrors(self.t, kind.prefix)
            with ui.grid(columns=2).classes("w-full gap-x-4 gap-y-1"):
                with ui.column().classes("gap-1"):
                    name = ui.input(self.t("workloads.field.name"), placeholder=kind.name_placeholder)
                    self.cell(name, errors, "name", "name")
                own = await kind.fields(self, errors)
            with ui.row().classes("w-full justify-end"):
                create = ui.button(kind.text(self.t, "action.create"), icon=kind.create_icon)
                create.props("no-caps").mark(f"{kind.prefix}-create")
        if self.accelerator is None or self._count is None:
            raise TypeError(f"the {kind.marker} form has no accelerator fields")
        form = CreateForm(errors, name, self.accelerator, self._count, own)
        create.on_click(lambda: self._submit(form, create))

    async def _submit(self, form: CreateForm[Inputs], create: ui.button) -> None:
        form.errors.clear()
        own = self.kind.request(self.t, form.errors, form.own)
        if own is None:
            return
        body = {
            "name": str(form.name.value or "").strip(),
            "accelerator": {"device_type": form.accelerator.value, "count": as_int(form.count.value)},
            **own,
        }
        create.disable()
        try:
            created = await self.kind.create(self.principal, self.project, body)
        except Exception as exc:  # every refusal is shown beside its field; the log has the unexpected
            form.errors.show(exc)
            form.accelerator.warn()  # a refusal of the count takes the red warning's place
            return
        finally:
            create.enable()
        ui.notify(self.kind.text(self.t, "done.created", name=created), type="positive")
        form.name.set_value("")
        await self.refresh()
