"""Admin → Devices → Add Device: a three-step wizard at `/admin/devices/new?step=1|2|3`.

Step 1 names the type and its resource key, checked live against the cluster as it is typed; step 2
maps the series' labels and writes the expressions, each with a Test against the real Prometheus;
step 3 shows everything and saves it through the catalog (the same checks run again there).

The step is in the URL, so a reload, the browser's back button or a shared link lands on it. The
draft is kept in NiceGUI's `app.storage.tab`: per browser tab (two tabs are two wizards that do not
overwrite each other), surviving reloads of that tab, held in the server's memory only. It is not
put in the URL because PromQL makes URLs long and ends up in proxies' logs and the browser's history,
and not in `app.storage.user` because that one is shared by every tab of the browser and written to
files on the server. A draft lives on the replica that served the tab (NiceGUI's connection needs
sticky sessions anyway) and is lost when it restarts: it is a draft, nothing is stored until Save.

Every error the catalog raises is shown next to the field it names (`field` of ValidationFailed or
Conflict), else at the top of the page; texts come from `nufi.ui.i18n` only.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from nicegui import app, background_tasks, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from nufi.devices.spec import MetricKey
from nufi.devices.units import MemoryUnit
from nufi.errors import NufiError, ValidationFailed
from nufi.logging import get_logger
from nufi.ui import context
from nufi.ui.i18n import Language, text
from nufi.ui.layout import DEVICES_PATH, forbidden, frame
from nufi.ui.pages.gate import Visitor, visitor
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import (
    IDENTITY_SLOTS,
    MEMORY_MODES,
    MEMORY_SECOND,
    RESULT_SLOT,
    SLOTS,
    STEP_SLOTS,
    Draft,
    DraftErrors,
    check_drafts,
    complete,
    create_payload,
    memory_mode,
    new_draft,
    payload_errors,
    second_memory_field,
    service_errors,
)

WIZARD_PATH = "/admin/devices/new"
DRAFT_KEY = "nufi.wizard.new_device"
KEY_CHECK_DELAY_SECONDS = 0.4
STEPS = (1, 2, 3)
_log = get_logger("nufi.ui.wizard")
# (slot, text key, quantities its Test shows) for the single-expression metrics.
_EXPRESSIONS: tuple[tuple[str, str, tuple[MetricKey, ...]], ...] = (
    ("metrics.utilization", "wizard.metric.utilization", ("utilization",)),
    ("metrics.temperature", "wizard.metric.temperature", ("temperature",)),
    ("metrics.power", "wizard.metric.power", ("power",)),
)
_MEMORY_KEYS: tuple[MetricKey, ...] = ("memory_used", "memory_total", "memory_free")


def step_url(step: int) -> str:
    return f"{WIZARD_PATH}?step={step}"


def register() -> None:
    @ui.page(WIZARD_PATH)
    async def wizard_page(request: Request, step: str = "1") -> RedirectResponse | None:
        who = await visitor(request)
        if isinstance(who, RedirectResponse):
            return who
        number = int(step) if step in {str(s) for s in STEPS} else 1
        frame(who.principal, who.language, current=step_url(number))
        if not who.principal.is_admin:
            forbidden(who.language)
            return None
        # The tab's storage exists once the browser tab has connected.
        await ui.context.client.connected()
        if not isinstance(app.storage.tab.get(DRAFT_KEY), dict):
            app.storage.tab[DRAFT_KEY] = new_draft()
        # The storage's own (observable) copy, so every change is kept.
        WizardView(who, complete(app.storage.tab[DRAFT_KEY]), number).render()
        return None


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:63].strip("-")


class WizardView:
    """One open wizard page: its step, the tab's draft, and the slots showing errors."""

    def __init__(self, who: Visitor, draft: Draft, step: int) -> None:
        self.visitor = who
        self.draft = draft
        self.step = step
        self.errors: dict[str, ui.label] = {}
        self.results: dict[str, ui.column] = {}
        self.top: ui.column | None = None
        self.key_result: ui.column | None = None
        self.key_task: asyncio.Task[None] | None = None
        self.key_sequence = 0
        self.id_input: ui.input | None = None
        self.second_input: ui.input | None = None

    @property
    def language(self) -> Language:
        return self.visitor.language

    def t(self, key: str, **fields: object) -> str:
        return text(self.language, key, **fields)

    # -- the frame of every step ---------------------------------------------------------------------

    def render(self) -> None:
        with ui.column().classes("w-full max-w-4xl gap-4 p-2"):
            ui.label(self.t("wizard.title")).classes("text-2xl font-semibold")
            with ui.row().classes("items-center gap-2").mark("wizard-steps"):
                for number, key in zip(
                    STEPS, ("wizard.step.identity", "wizard.step.metrics", "wizard.step.review"), strict=True
                ):
                    current = number == self.step
                    chip = ui.label(f"{number}. {self.t(key)}").classes(
                        "rounded px-2 py-1 " + ("bg-slate-800 text-white" if current else "bg-slate-200")
                    )
                    if current:
                        chip.mark("wizard-current-step")
            ui.label(self.t("wizard.step_of", step=self.step)).classes("text-sm text-slate-500")
            self.top = ui.column().classes("w-full gap-1").mark("error-top")
            if self.step == 1:
                self.identity_step()
            elif self.step == 2:
                self.metrics_step()
            else:
                self.review_step()

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

    def show_errors(self, errors: Mapping[str | None, str]) -> None:
        """Each message next to its slot; at the top when the page has no such slot."""
        for slot, message in errors.items():
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

        with ui.column().classes("w-full gap-0"):
            entry = ui.input(label, value=self.draft.get(slot, ""), on_change=changed)
            entry.classes("w-full").props("outlined dense").mark(slot)
            if hint_key is not None:
                entry.props(f'hint="{self.t(hint_key)}"')
            self.error_slot(slot)
        return entry

    def navigation(self, *, back: int | None, forward: Callable[[], Any], forward_key: str) -> None:
        with ui.row().classes("items-center gap-2 mt-2"):
            if back is not None:
                ui.button(self.t("wizard.back"), on_click=lambda: ui.navigate.to(step_url(back))).props(
                    "flat no-caps"
                ).mark("wizard-back")
            ui.button(self.t(forward_key), on_click=forward).props("no-caps").mark("wizard-forward")
            ui.button(self.t("wizard.restart"), on_click=self.restart).props("flat no-caps color=grey").mark(
                "wizard-restart"
            )

    def restart(self) -> None:
        app.storage.tab[DRAFT_KEY] = new_draft()
        ui.navigate.to(step_url(1))

    def go_on(self, step: int) -> None:
        """To `step` when the model's rules hold for this step's fields; else the errors, in place."""
        self.clear_errors()
        errors = payload_errors(self.draft, STEP_SLOTS[self.step])
        if errors:
            self.show_errors(errors)
            return
        ui.navigate.to(step_url(step))

    # -- step 1: name, vendor, resource key ----------------------------------------------------------

    def identity_step(self) -> None:
        self.field("name", "wizard.field.name", on_change=self.name_changed)
        self.field("vendor", "wizard.field.vendor")
        self.id_input = self.field("id", "wizard.field.id", hint_key="wizard.hint.id")
        self.field(
            "resource_key",
            "wizard.field.resource_key",
            hint_key="wizard.hint.resource_key",
            on_change=lambda _: self.schedule_key_check(),
        )
        self.key_result = ui.column().classes("w-full gap-1").mark("key-result")
        if self.draft.get("resource_key", "").strip():
            self.schedule_key_check(delay=0)
        self.navigation(back=None, forward=lambda: self.go_on(2), forward_key="wizard.next")

    def name_changed(self, name: Any) -> None:
        # The id follows the name until the admin writes one of their own.
        previous = self.draft.get("name.previous_slug", "")
        current_id = self.draft.get("id", "")
        slug = _slug(str(name or ""))
        self.draft["name.previous_slug"] = slug
        if self.id_input is not None and current_id in ("", previous):
            self.id_input.set_value(slug)

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
        try:
            check = await context.services().catalog.check_resource_key(self.visitor.principal, key)
        except ValidationFailed as exc:
            problems = exc.extra.get("problems")
            listed = [str(p) for p in problems] if isinstance(problems, list) else []
            show = partial(render.key_invalid, self.language, exc.detail, listed)
        except NufiError as exc:
            show = partial(render.key_unreadable, self.language, exc.detail)
        else:
            show = partial(render.key_found, self.language, check)
        if sequence != self.key_sequence or area.is_deleted:
            return  # a newer key was typed meanwhile, or the page is gone
        area.clear()
        with area:
            show()

    # -- step 2: labels and expressions --------------------------------------------------------------

    def metrics_step(self) -> None:
        ui.label(self.t("wizard.labels.title")).classes("text-lg font-semibold")
        ui.label(self.t("wizard.labels.help")).classes(render.NOTE_CLASSES)
        self.error_slot("labels")
        with ui.grid(columns=2).classes("w-full gap-2"):
            self.field("labels.node", "wizard.label.node")
            self.field("labels.device", "wizard.label.device")
            self.field("labels.pod", "wizard.label.pod", optional=True)
            self.field("labels.namespace", "wizard.label.namespace", optional=True)
        ui.label(self.t("wizard.metrics.title")).classes("text-lg font-semibold mt-4")
        self.error_slot("metrics")
        first, *rest = _EXPRESSIONS
        self.expression_card(*first)
        self.memory_card()
        for slot, label_key, keys in rest:
            self.expression_card(slot, label_key, keys, optional=True)
        self.navigation(back=1, forward=lambda: self.go_on(3), forward_key="wizard.next")

    def expression_card(
        self, slot: str, label_key: str, keys: tuple[MetricKey, ...], *, optional: bool = False
    ) -> None:
        with ui.card().classes("w-full").props("flat bordered"):
            with ui.row().classes("w-full items-start gap-2 no-wrap"):
                with ui.column().classes("grow gap-0"):
                    self.field(slot, label_key, optional=optional)
                self.test_button(slot, keys)
            self.results[slot] = ui.column().classes("w-full gap-1").mark(f"result-{slot}")

    def memory_card(self) -> None:
        with ui.card().classes("w-full").props("flat bordered"):
            with ui.row().classes("w-full items-center gap-4"):
                ui.label(self.t("wizard.metric.memory") + f" {self.t('wizard.optional')}").classes(
                    "font-medium"
                )
                ui.toggle(
                    {mode: self.t(f"wizard.memory.mode.{mode}") for mode in MEMORY_MODES},
                    value=memory_mode(self.draft),
                    on_change=lambda event: self.mode_changed(event.value),
                ).props("no-caps dense").mark("metrics.memory.mode")
                with ui.column().classes("gap-0"):
                    ui.select(
                        [unit.value for unit in MemoryUnit],
                        label=self.t("wizard.memory.unit"),
                        value=self.draft.get("metrics.memory.unit") or MemoryUnit.BYTES.value,
                        on_change=lambda event: self.set_value("metrics.memory.unit", event.value),
                    ).props("outlined dense").classes("w-32").mark("metrics.memory.unit")
                    self.error_slot("metrics.memory.unit")
                self.test_button("metrics.memory.used", _MEMORY_KEYS)
            self.field("metrics.memory.used", "wizard.memory.used")
            self.results["metrics.memory.used"] = (
                ui.column().classes("w-full gap-1").mark("result-metrics.memory.used")
            )
            with ui.column().classes("w-full gap-0"):
                self.second_input = ui.input(
                    self.second_label(),
                    value=self.draft.get(second_memory_field(self.draft), ""),
                    on_change=lambda event: self.set_value(second_memory_field(self.draft), event.value),
                )
                self.second_input.classes("w-full").props("outlined dense").mark(MEMORY_SECOND)
                self.error_slot(MEMORY_SECOND)
            self.results[MEMORY_SECOND] = ui.column().classes("w-full gap-1").mark(f"result-{MEMORY_SECOND}")

    def second_label(self) -> str:
        return self.t(
            "wizard.memory.total" if memory_mode(self.draft) == "used_total" else "wizard.memory.free"
        )

    def mode_changed(self, mode: Any) -> None:
        self.draft["metrics.memory.mode"] = "used_free" if mode == "used_free" else "used_total"
        self.errors[MEMORY_SECOND].set_text("")
        self.results[MEMORY_SECOND].clear()
        if self.second_input is not None:
            self.second_input.props["label"] = self.second_label()
            # What was typed for this mode before comes back (the draft keeps both).
            self.second_input.set_value(self.draft.get(second_memory_field(self.draft), ""))
            self.second_input.update()

    def test_button(self, slot: str, keys: tuple[MetricKey, ...]) -> None:
        ui.button(self.t("wizard.test"), on_click=lambda: self.test(keys)).props("outline no-caps").mark(
            f"test-{slot}"
        )

    async def test(self, keys: tuple[MetricKey, ...]) -> None:
        """Run the catalog's check on the whole draft; show the label errors and the results of `keys`."""
        slots = {RESULT_SLOT[key] for key in keys}
        self.clear_errors()
        for slot in slots:
            self.results[slot].clear()
        try:
            labels, metrics = check_drafts(self.draft)
        except DraftErrors as exc:
            self.show_errors(exc.errors)
            return
        for slot in slots:
            with self.results[slot]:
                ui.label(self.t("wizard.test.running")).classes(render.NOTE_CLASSES)
        try:
            check = await context.services().catalog.check_metrics(self.visitor.principal, labels, metrics)
        except NufiError as exc:
            for slot in slots:
                self.results[slot].clear()
            self.show_errors(service_errors(exc))
            return
        for slot in slots:
            self.results[slot].clear()
        self.show_errors({f"labels.{name}": why for name, why in check.label_errors.items()})
        shown = [key for key in keys if key in check.results]
        if not shown:
            with self.results[RESULT_SLOT[keys[0]]]:
                ui.label(self.t("wizard.test.empty")).classes(render.NOTE_CLASSES).mark("metric-empty")
        for key in shown:
            with self.results[RESULT_SLOT[key]]:
                render.metric_result(self.language, check.results[key])

    # -- step 3: review and save ---------------------------------------------------------------------

    def review_step(self) -> None:
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
        ]
        with ui.column().classes("w-full gap-1").mark("review"):
            for slot, label_key, value in rows:
                group = slot in ("labels", "metrics")
                with ui.row().classes("w-full items-baseline gap-4 no-wrap border-b py-1"):
                    ui.label(self.t(label_key)).classes(
                        "w-48 shrink-0 " + ("font-semibold" if group else "text-slate-600")
                    )
                    with ui.column().classes("gap-0 grow"):
                        if not group:
                            ui.label(value.strip() or none).classes("font-mono text-sm break-all").mark(
                                f"review-{slot}"
                            )
                        if slot in SLOTS:
                            self.error_slot(slot)
        with ui.row().classes("gap-4"):
            ui.link(self.t("wizard.edit.identity"), step_url(1))
            ui.link(self.t("wizard.edit.metrics"), step_url(2))
        self.navigation(back=2, forward=self.save, forward_key="wizard.save")

    async def save(self) -> None:
        self.clear_errors()
        try:
            payload = create_payload(self.draft)
        except DraftErrors as exc:
            self.show_errors(exc.errors)
            return
        try:
            outcome = await context.services().catalog.create(self.visitor.principal, payload, force=False)
        except NufiError as exc:
            self.show_errors(service_errors(exc))
            return
        except Exception:  # never a stack trace on the page; the log has it
            _log.exception("saving a device type from the wizard failed")
            self.show_errors({None: self.t("wizard.error.unexpected")})
            return
        app.storage.tab[DRAFT_KEY] = new_draft()
        ui.notify(self.t("wizard.saved", name=outcome.device_type.name), type="positive")
        ui.navigate.to(DEVICES_PATH)
