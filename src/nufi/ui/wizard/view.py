"""The Add Device wizard's page: the frame of every step around the step shown, each step an object
on the one form the steps share (its draft, its error slots, its moves between steps)."""

from __future__ import annotations

from typing import Protocol

from nicegui import ui

from nufi.ui.i18n import Translator
from nufi.ui.parts.gate import Visitor
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import started_revision
from nufi.ui.wizard.form import STEPS, WizardForm
from nufi.ui.wizard.identity_step import IdentityStep
from nufi.ui.wizard.kept import KeptDraft
from nufi.ui.wizard.metrics_step import MetricsStep
from nufi.ui.wizard.review_step import ReviewStep


class Step(Protocol):
    @property
    def form(self) -> WizardForm: ...

    def render(self) -> None:
        """The step's content, below the frame, on the form the steps share."""


class WizardView:
    """The wizard's page: the steps' frame around the step shown, the steps sharing one form."""

    def __init__(self, who: Visitor, t: Translator, draft: KeptDraft, step: int) -> None:
        self.form = WizardForm(who, t, draft, step)
        self.t = t
        self.steps: dict[int, Step] = {
            1: IdentityStep(self.form),
            2: MetricsStep(self.form),
            3: ReviewStep(self.form),
        }

    def render(self) -> None:
        form = self.form
        with ui.column().classes("w-full max-w-4xl gap-4 p-2"):
            title = (
                self.t("wizard.edit_mode.title", name=form.draft.get("name", ""))
                if form.editing is not None
                else self.t("wizard.title")
            )
            ui.label(title).classes("text-2xl font-semibold").mark("wizard-title")
            with ui.row().classes("items-center gap-2").mark("wizard-steps"):
                for number, key in zip(
                    STEPS, ("wizard.step.identity", "wizard.step.metrics", "wizard.step.review"), strict=True
                ):
                    current = number == form.step
                    chip = ui.label(f"{number}. {self.t(key)}").classes(
                        "rounded px-2 py-1 " + ("bg-slate-800 text-white" if current else "bg-slate-200")
                    )
                    if current:
                        chip.mark("wizard-current-step")
            ui.label(self.t("wizard.step_of", step=form.step)).classes("text-sm text-slate-500")
            if form.editing is not None:
                ui.label(
                    self.t(
                        "wizard.edit_mode.editing",
                        id=form.editing,
                        revision=started_revision(form.draft),
                    )
                ).classes(render.NOTE_CLASSES).mark("edit-revision")
            form.top = ui.column().classes("w-full gap-1").mark("error-top")
            self.steps[form.step].render()

    def say_draft_missing(self) -> None:
        if self.form.top is not None:
            with self.form.top:
                ui.label(self.t("wizard.draft.missing")).classes(render.NOTE_CLASSES).mark("draft-missing")
