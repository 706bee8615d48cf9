"""Driving the Add Device wizard as the admin: opening it at a step on the page's draft, filling step
one, and waiting for what a marked part of the page shows."""

from __future__ import annotations

from typing import Any

from nicegui import background_tasks
from nicegui.testing import User

from nufi.devices.drafts import WizardDrafts
from nufi.ui.wizard.kept import SAVE_TASK_NAME
from support.polling import eventually

from .wizard_world import WIZARD_KEY, as_, attached_services, shown

WIZARD = "/admin/devices/new"


def sees(user: User, marker: str, *expected: str) -> Any:
    def check() -> None:
        text = shown(user, marker)
        for part in expected:
            assert part in text, f"{part!r} not in {marker}: {text!r}"

    return check


def drafts() -> WizardDrafts:
    return attached_services().wizard_drafts


def draft_id(user: User) -> str:
    """The draft id in the URL of the page the user is on ("" when it has none)."""
    assert user.client is not None
    return user.client.request.query_params.get("draft", "")


def no_save_pending() -> None:
    assert not [task for task in background_tasks.running_tasks if task.get_name() == SAVE_TASK_NAME]


async def open_wizard(user: User, language: str | None, step: int) -> None:
    """Open the wizard at `step` as the admin, on the draft of the wizard page the user is on, if any
    (`language` None: as before). Like a reload once the typing has paused: what was typed is saved."""
    if language is not None:
        as_(user, "admin", language)
    draft = draft_id(user) if user.client is not None else ""
    await eventually(no_save_pending, within=5)
    await user.open(f"{WIZARD}?step={step}" + (f"&draft={draft}" if draft else ""))
    await at_step(user, step)


async def at_step(user: User, number: int) -> None:
    await eventually(sees(user, "wizard-current-step", f"{number}."), within=10)


async def fill_identity(user: User, key: str = WIZARD_KEY) -> None:
    user.find(marker="name").type("Wizard NPU")
    user.find(marker="vendor").type("Example")
    user.find(marker="resource_key").type(key)
