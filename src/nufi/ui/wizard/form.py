"""What every step of the Add Device wizard shares: the draft (kept in the database), the slots that
show errors next to their fields (or at the top), inputs bound to the draft, and the buttons between
the steps. The same frame edits a stored type (`edit_url`): then the id, and for an official
type its whole identity, is shown read-only."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import quote

from nicegui import ui

from nufi.devices.said import said_of_error
from nufi.errors import NufiError
from nufi.logging import get_logger
from nufi.messages import Message
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.gate import Visitor
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import (
    EDIT_ID,
    OFFICIAL_LOCKED,
    STEP_SLOTS,
    is_edit,
    is_official_edit,
    payload_errors,
)
from nufi.ui.wizard.kept import KeptDraft

WIZARD_PATH = "/admin/devices/new"
EDIT_PATH = "/admin/devices/{device_type_id}/edit"
STEPS = (1, 2, 3)
_log = get_logger("nufi.ui.wizard")


def step_url(step: int, draft: str | None = None) -> str:
    """The wizard at `step`, on the draft `draft`; without one, the page starts a new draft."""
    return f"{WIZARD_PATH}?step={step}" + (f"&draft={draft}" if draft else "")


def edit_url(device_type_id: str, step: int | None = None, draft: str | None = None) -> str:
    """The wizard editing the stored type `device_type_id` at `step` (None: the first), on the draft
    `draft`; without one, the page starts a draft from the stored type."""
    path = EDIT_PATH.format(device_type_id=quote(device_type_id, safe=""))
    if step is None and not draft:
        return path
    return f"{path}?step={step or 1}" + (f"&draft={draft}" if draft else "")


# Whether the person, asked when a step's values are valid but doubtful, still moves on to a step.
MayLeave = Callable[[int], Awaitable[bool]]


class WizardForm:
    """One open wizard page's shared state, held by each of its steps: the step shown, the draft,
    and the slots showing errors."""

    def __init__(self, who: Visitor, t: Translator, draft: KeptDraft, step: int) -> None:
        self.visitor = who
        self.t = t
        self.draft = draft
        self.step = step
        self.errors: dict[str, ui.label] = {}
        self.top: ui.column | None = None

    @property
    def editing(self) -> str | None:
        """The id of the stored type this wizard edits; None when it adds a new one."""
        return self.draft.get(EDIT_ID) if is_edit(self.draft) else None

    def locked(self, slot: str) -> bool:
        """Whether the edit may not change `slot`: the id of any stored type, an official one's identity."""
        if not is_edit(self.draft):
            return False
        return slot == "id" or (is_official_edit(self.draft) and slot in OFFICIAL_LOCKED)

    def error_slot(self, slot: str) -> ui.label:
        label = ui.label("").classes(render.ERROR_CLASSES).mark(f"error-{slot}")
        label.bind_visibility_from(label, "text", backward=bool)
        self.errors[slot] = label
        return label

    def clear_errors(self) -> None:
        for label in self.errors.values():
            label.set_text("")
        if self.top is not None:
            self.top.clear()

    def show_errors(self, errors: Mapping[str | None, str | Message]) -> None:
        """Each message next to its slot; at the top when the page has no such slot. A service's
        message is worded here, in the reader's language."""
        for slot, said in errors.items():
            message = said if isinstance(said, str) else self.t.message(said.code, said.params)
            label = self.errors.get(slot) if slot is not None else None
            if label is not None:
                label.set_text(message)
            elif self.top is not None:
                with self.top:
                    ui.label(message).classes(render.ERROR_CLASSES).mark("error-top-message")

    def set_value(self, slot: str, value: Any) -> None:
        self.draft[slot] = "" if value is None else str(value)
        label = self.errors.get(slot)
        if label is not None:
            label.set_text("")

    def field(
        self,
        slot: str,
        label_key: str,
        *,
        optional: bool = False,
        hint_key: str | None = None,
        on_change: Callable[[Any], None] | None = None,
    ) -> ui.input:
        label = self.t(label_key) + (f" {self.t('wizard.optional')}" if optional else "")

        def changed(event: Any) -> None:
            self.set_value(slot, event.value)
            if on_change is not None:
                on_change(event.value)

        locked = self.locked(slot)
        with ui.column().classes("w-full gap-0"):
            # A locked field is not bound to the draft: nothing typed into it reaches the save.
            entry = ui.input(label, value=self.draft.get(slot, ""), on_change=None if locked else changed)
            entry.classes("w-full").props("outlined dense").mark(slot)
            if locked:
                entry.props("readonly")
            if hint_key is not None:
                entry.props(f'hint="{self.t(hint_key)}"')
            self.error_slot(slot)
        return entry

    def navigation(self, *, back: int | None, forward: Callable[[], Any], forward_key: str) -> None:
        with ui.row().classes("items-center gap-2 mt-2"):
            if back is not None:
                ui.button(self.t("wizard.back"), on_click=lambda: self.go_to(back)).props(
                    "flat no-caps"
                ).mark("wizard-back")
            ui.button(self.t(forward_key), on_click=forward).props("no-caps").mark("wizard-forward")
            ui.button(self.t("wizard.restart"), on_click=self.restart).props("flat no-caps color=grey").mark(
                "wizard-restart"
            )

    def url(self, step: int) -> str:
        editing = self.editing
        if editing is not None:
            return edit_url(editing, step, self.draft.id)
        return step_url(step, self.draft.id)

    async def kept(self) -> bool:
        """Whether every change is saved (saving what is pending now); else the reason, at the top."""
        try:
            await self.draft.flush()
        except NufiError as exc:
            self.show_errors({None: said_of_error(exc)})
            return False
        except Exception:
            _log.exception("saving a wizard draft failed")
            self.show_errors({None: self.t("wizard.draft.unsaved")})
            return False
        return True

    async def go_to(self, step: int) -> None:
        """To `step` of this draft, once what was typed here is saved."""
        if await self.kept():
            ui.navigate.to(self.url(step))

    async def restart(self) -> None:
        """Forget this draft; the wizard opens on a new, empty one (an edit: on the stored type again)."""
        editing = self.editing
        try:
            await context.services().wizard_drafts.delete(self.visitor.principal, self.draft.id)
        except NufiError as exc:
            self.show_errors({None: said_of_error(exc)})
            return
        ui.navigate.to(edit_url(editing) if editing is not None else step_url(1))

    async def go_on(self, step: int, may_leave: MayLeave | None = None) -> None:
        """To `step` when the model's rules hold for this step's fields, and `may_leave` (the step's
        question, if it asks one) agrees; else the errors, in place."""
        self.clear_errors()
        errors = payload_errors(self.draft, STEP_SLOTS[self.step])
        if errors:
            self.show_errors(errors)
            return
        if may_leave is None or await may_leave(step):
            await self.go_to(step)
