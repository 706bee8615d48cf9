"""Step 1 of the Add Device wizard: name, vendor and the resource key, checked live against the
cluster as it is typed; going on with a key no node advertises asks first."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial

from nicegui import background_tasks, ui

from nufi.devices.checks import registered_by
from nufi.errors import NufiError, ValidationFailed
from nufi.messages import MessageModel
from nufi.ui import context
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import is_official_edit, slug_of
from nufi.ui.wizard.form import WizardForm, edit_url

KEY_CHECK_DELAY_SECONDS = 0.4


class IdentityStep:
    """Step 1 on the wizard's shared form: the identity fields and the live check of the key."""

    def __init__(self, form: WizardForm) -> None:
        self.form = form
        self.t = form.t
        self.draft = form.draft
        self.key_result: ui.column | None = None
        self.key_task: asyncio.Task[None] | None = None
        self.key_sequence = 0
        self.id_input: ui.input | None = None
        # The question before leaving is open: another click on Next waits for its answer.
        self.asking = False

    def render(self) -> None:
        if is_official_edit(self.draft):
            ui.label(self.t("wizard.edit_mode.official")).classes(render.NOTE_CLASSES).mark("edit-official")
        self.form.field("name", "wizard.field.name")
        self.form.field("vendor", "wizard.field.vendor")
        self.id_input = self.form.field("id", "wizard.field.id", hint_key="wizard.hint.id")
        self.form.field(
            "resource_key",
            "wizard.field.resource_key",
            hint_key="wizard.hint.resource_key",
            on_change=lambda _: self.schedule_key_check(),
        )
        self.key_result = ui.column().classes("w-full gap-1").mark("key-result")
        if self.draft.get("resource_key", "").strip():
            self.schedule_key_check(delay=0)
        self.form.navigation(back=None, forward=lambda: self.go_on(2), forward_key="wizard.next")

    async def go_on(self, step: int) -> None:
        # A new type left without an id takes one made from its name, when the admin moves on rather
        # than while they type: rewriting a field under someone typing in the next one loses keys.
        if self.form.step == 1 and not self.form.editing and not self.draft.get("id", "").strip():
            slug = slug_of(self.draft.get("name", ""))
            if slug and self.id_input is not None:
                self.id_input.set_value(slug)
        await self.form.go_on(step, self.may_leave)

    async def may_leave(self, step: int) -> bool:
        """Step 1 asks before going on with a valid key no node advertises: the type could be saved,
        but would show and place nothing. An official type's key cannot change here, so it is not asked
        about; nor is a key the cluster cannot be read for (the live check already says so)."""
        if self.form.step != 1 or step < self.form.step or self.form.locked("resource_key"):
            return True
        if self.asking:
            return False
        self.asking = True
        try:
            return await self.key_confirmed(self.draft.get("resource_key", "").strip())
        finally:
            self.asking = False

    async def key_confirmed(self, key: str) -> bool:
        """Whether the cluster offers `key`, or the person, asked, goes on without it."""
        try:
            check = await context.services().catalog.check_resource_key(self.form.visitor.principal, key)
        except NufiError:
            return True
        if check.found:
            return True
        dialog = self.key_confirmation(key)
        try:
            return await dialog is True
        finally:
            dialog.delete()

    def key_confirmation(self, key: str) -> ui.dialog:
        """The opened question whether to go on with `key`; answers True (go on) or False (back)."""
        with ui.dialog() as dialog, ui.card().classes("max-w-lg gap-3").mark("key-confirm"):
            ui.label(self.t("wizard.key.confirm.title", resource_key=key)).classes(
                "text-lg font-semibold break-all"
            ).mark("key-confirm-title")
            ui.label(self.t("wizard.key.confirm.body"))
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(self.t("wizard.key.confirm.back"), on_click=lambda: dialog.submit(False)).props(
                    "flat no-caps"
                ).mark("key-confirm-back")
                ui.button(self.t("wizard.key.confirm.go_on"), on_click=lambda: dialog.submit(True)).props(
                    "no-caps color=warning"
                ).mark("key-confirm-go-on")
        dialog.open()
        return dialog

    def schedule_key_check(self, delay: float = KEY_CHECK_DELAY_SECONDS) -> None:
        """Check the key once typing pauses for `delay`; a newer key cancels the check of an older one."""
        if self.key_task is not None:
            self.key_task.cancel()
        self.key_sequence += 1
        self.key_task = background_tasks.create(
            self.check_key(self.key_sequence, delay), name="wizard key check"
        )

    async def check_key(self, sequence: int, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        key = self.draft.get("resource_key", "").strip()
        area = self.key_result
        if area is None or sequence != self.key_sequence:
            return
        area.clear()
        if not key:
            return
        with area:
            ui.label(self.t("wizard.key.checking")).classes(render.NOTE_CLASSES).mark("key-checking")
        show: Callable[[], None]
        catalog = context.services().catalog
        try:
            # Whichever type already uses the key is shown even when the cluster cannot be read.
            owner = registered_by(
                key, await catalog.list(self.form.visitor.principal), editing=self.form.editing
            )
        except NufiError:
            owner = None
        try:
            check = await catalog.check_resource_key(self.form.visitor.principal, key)
        except ValidationFailed as exc:
            problems = exc.own_params.get("problems")
            listed = [MessageModel.model_validate(p) for p in problems] if isinstance(problems, list) else []
            show = partial(render.key_invalid, self.t, exc.text(self.t.language), listed)
        except NufiError as exc:
            show = partial(render.key_unreadable, self.t, exc.text(self.t.language))
        else:
            show = partial(render.key_found, self.t, check)
        if sequence != self.key_sequence or area.is_deleted:
            return  # a newer key was typed meanwhile, or the page is gone
        area.clear()
        with area:
            if owner is not None:
                render.key_registered(self.t, owner, edit_url(owner.id))
            show()
