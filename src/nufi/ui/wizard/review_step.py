"""Step 3 of the Add Device wizard: everything on one page, and Save (a new type) or Save changes (an
edit, over the revision the draft started from; a newer one is a conflict with a Reload)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

from nicegui import ui

from nufi.devices.catalog import SaveOutcome
from nufi.devices.said import said_of_error
from nufi.errors import Conflict, DependencyUnavailable, NufiError
from nufi.logging import get_logger
from nufi.prom.errors import PROMETHEUS
from nufi.ui import context
from nufi.ui.pages.devices import PATH as DEVICES_PATH
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import (
    IDENTITY_SLOTS,
    MEMORY_SECOND,
    SLOTS,
    Draft,
    DraftErrors,
    create_payload,
    draft_of,
    memory_mode,
    second_memory_field,
    service_errors,
    started_revision,
    update_payload,
)
from nufi.ui.wizard.form import WizardForm

_log = get_logger("nufi.ui.wizard")
Payload = TypeVar("Payload")


class ReviewStep:
    """Step 3 on the wizard's shared form: the review, and the save or the edit's save."""

    def __init__(self, form: WizardForm) -> None:
        self.form = form
        self.visitor = form.visitor
        self.t = form.t
        self.draft = form.draft
        # "Save even if the checks fail".
        self.force: ui.checkbox | None = None

    def render(self) -> None:
        ui.label(self.t("wizard.review.title")).classes("text-lg font-semibold")
        none = self.t("wizard.review.none")
        mode = memory_mode(self.draft)
        rows: list[tuple[str, str, str]] = [
            *((slot, f"wizard.field.{slot}", self.draft.get(slot, "")) for slot in IDENTITY_SLOTS),
            ("labels", "wizard.labels.title", ""),
            *(
                (f"labels.{n}", f"wizard.label.{n}", self.draft.get(f"labels.{n}", ""))
                for n in ("node", "device", "pod", "namespace")
            ),
            ("metrics", "wizard.metrics.title", ""),
            ("metrics.utilization", "wizard.metric.utilization", self.draft.get("metrics.utilization", "")),
            ("metrics.memory.mode", "wizard.metric.memory", self.t(f"wizard.memory.mode.{mode}")),
            ("metrics.memory.used", "wizard.memory.used", self.draft.get("metrics.memory.used", "")),
            (
                MEMORY_SECOND,
                "wizard.memory.total" if mode == "used_total" else "wizard.memory.free",
                self.draft.get(second_memory_field(self.draft), ""),
            ),
            ("metrics.memory.unit", "wizard.memory.unit", self.draft.get("metrics.memory.unit", "")),
            ("metrics.temperature", "wizard.metric.temperature", self.draft.get("metrics.temperature", "")),
            ("metrics.power", "wizard.metric.power", self.draft.get("metrics.power", "")),
            ("metrics.health", "wizard.metric.health", self.draft.get("metrics.health", "")),
        ]
        with ui.column().classes("w-full gap-1").mark("review"):
            for slot, label_key, value in rows:
                group = slot in ("labels", "metrics")
                with ui.row().classes("w-full items-baseline gap-4 no-wrap border-b border-slate-200 py-1"):
                    ui.label(self.t(label_key)).classes(
                        "w-48 shrink-0 " + ("font-semibold" if group else "text-slate-600")
                    )
                    with ui.column().classes("gap-0 grow"):
                        if not group:
                            # Identifiers and expressions as code; names, the memory mode and
                            # "none" are words.
                            technical = slot not in ("name", "vendor", "metrics.memory.mode")
                            typed = bool(value.strip())
                            look = "font-mono break-all" if typed and technical else "break-words"
                            look += "" if typed else " text-slate-600"
                            ui.label(value.strip() or none).classes(f"text-sm {look}").mark(f"review-{slot}")
                        if slot in SLOTS:
                            self.form.error_slot(slot)
        with ui.row().classes("gap-4"):
            ui.link(self.t("wizard.edit.identity"), self.form.url(1))
            ui.link(self.t("wizard.edit.metrics"), self.form.url(2))
        # An admin may register a type before its device plugin or exporter is installed; the save
        # then records that the checks were bypassed.
        self.force = ui.checkbox(self.t("wizard.force")).mark("wizard-force")
        editing = self.form.editing
        if editing is not None:
            self.form.navigation(
                back=2, forward=partial(self.save_changes, editing), forward_key="wizard.edit_mode.save"
            )
        else:
            self.form.navigation(back=2, forward=self.save, forward_key="wizard.save")

    @property
    def forced(self) -> bool:
        return self.force is not None and bool(self.force.value)

    def payload(self, make: Callable[[Draft], Payload]) -> Payload | None:
        """The draft as the request `make` reads from it, the last errors cleared; None, with the
        draft's errors beside their fields, when it is not one yet."""
        self.form.clear_errors()
        try:
            return make(self.draft)
        except DraftErrors as exc:
            self.form.show_errors(exc.errors)
            return None

    async def save(self) -> None:
        payload = self.payload(create_payload)
        if payload is None:
            return
        try:
            outcome = await context.services().catalog.create(
                self.visitor.principal, payload, force=self.forced
            )
        except NufiError as exc:
            self.form.show_errors(service_errors(exc))
            self.offer_unchecked(exc, self.save)
            return
        except Exception:  # never a stack trace on the page; the log has it
            _log.exception("saving a device type from the wizard failed")
            self.form.show_errors({None: self.t("wizard.error.unexpected")})
            return
        await self.saved(self.t("wizard.saved", name=outcome.device_type.name))

    async def save_changes(self, editing: str) -> None:
        """The edit of type `editing`, over the revision the draft started from; a newer one is a
        conflict with a Reload."""
        payload = self.payload(update_payload)
        if payload is None:
            return
        outcome: SaveOutcome
        try:
            outcome = await context.services().catalog.update(
                self.visitor.principal, editing, payload, force=self.forced
            )
        except Conflict as exc:
            if "current_revision" in exc.extra:
                self.say_stale(editing, exc.extra["current_revision"])
            else:
                self.form.show_errors(service_errors(exc))
            return
        except NufiError as exc:
            self.form.show_errors(service_errors(exc))
            self.offer_unchecked(exc, partial(self.save_changes, editing))
            return
        except Exception:
            _log.exception("saving an edited device type from the wizard failed", device_type=editing)
            self.form.show_errors({None: self.t("wizard.error.unexpected")})
            return
        changed = outcome.device_type
        await self.saved(self.t("wizard.edit_mode.saved", name=changed.name, revision=changed.revision))

    def offer_unchecked(self, exc: NufiError, save: Callable[[], Awaitable[None]]) -> None:
        """When Prometheus could not be asked, say that the metrics were therefore not checked, and
        offer the save without the metric check (`force`), which the audit record then notes."""
        top = self.form.top
        if not (isinstance(exc, DependencyUnavailable) and exc.dependency == PROMETHEUS) or top is None:
            return

        async def save_unchecked() -> None:
            if self.force is not None:
                self.force.set_value(True)
            # In the top's slot, not this button's: saving clears the top, this panel with it.
            with top:
                await save()

        with (
            top,
            ui.column().classes("w-full gap-1 rounded border border-amber-300 bg-amber-50 p-3") as panel,
        ):
            panel.props('data-testid="wizard-prometheus-down"').mark("wizard-prometheus-down")
            ui.label(self.t("wizard.unchecked.title")).classes("font-semibold text-amber-900")
            ui.label(self.t("wizard.unchecked.body")).classes("text-sm")
            ui.button(
                self.t("wizard.unchecked.save"), icon="playlist_add_check", on_click=save_unchecked
            ).props("outline no-caps color=brown-9").mark("wizard-save-unchecked")

    async def saved(self, message: str) -> None:
        """Done: the draft deleted, the device list with `message`."""
        try:
            await context.services().wizard_drafts.delete(self.visitor.principal, self.draft.id)
        except Exception:  # saved all the same; the draft is forgotten after DRAFT_LIFETIME
            _log.warning("deleting a saved wizard draft failed", exc_info=True)
        ui.notify(message, type="positive")
        ui.navigate.to(DEVICES_PATH)

    def say_stale(self, editing: str, current: object) -> None:
        if self.form.top is None:
            return
        with self.form.top, ui.column().classes("w-full gap-1").mark("edit-stale"):
            ui.label(
                self.t("wizard.edit_mode.stale", current=current, started=started_revision(self.draft))
            ).classes(render.ERROR_CLASSES).mark("edit-stale-message")
            ui.button(
                self.t("wizard.edit_mode.reload"),
                icon="refresh",
                on_click=partial(self.reload_stored, editing),
            ).props("outline no-caps").mark("edit-reload")

    async def reload_stored(self, editing: str) -> None:
        """The stored type, read again into this draft (their changes win), at this step again."""
        self.form.clear_errors()
        try:
            stored = await context.services().catalog.get(self.visitor.principal, editing)
        except NufiError as exc:
            self.form.show_errors({None: said_of_error(exc)})
            return
        fresh = draft_of(stored)
        for key in [key for key in self.draft if key not in fresh]:
            del self.draft[key]
        for key, value in fresh.items():
            self.draft[key] = value
        if await self.form.kept():
            ui.navigate.to(self.form.url(self.form.step))
