"""Step 2 of the Add Device wizard: the labels and the expressions, each with a Test that runs the
catalog's metric check on the whole draft against the real Prometheus."""

from __future__ import annotations

from typing import Any

from nicegui import ui

from nufi.devices.spec import MetricKey
from nufi.devices.units import MemoryUnit
from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import (
    MEMORY_MODES,
    MEMORY_SECOND,
    RESULT_SLOT,
    DraftErrors,
    check_drafts,
    fetcher_of,
    memory_mode,
    second_memory_field,
    service_errors,
)
from nufi.ui.wizard.form import WizardForm

# (slot, text key, quantities its Test shows) for the single-expression metrics.
_EXPRESSIONS: tuple[tuple[str, str, tuple[MetricKey, ...]], ...] = (
    ("metrics.utilization", "wizard.metric.utilization", ("utilization",)),
    ("metrics.temperature", "wizard.metric.temperature", ("temperature",)),
    ("metrics.power", "wizard.metric.power", ("power",)),
    ("metrics.health", "wizard.metric.health", ("health",)),
)
# What an expression must give, said under its field where the label alone does not tell it.
_HINTS = {"metrics.health": "wizard.hint.health"}
_MEMORY_KEYS: tuple[MetricKey, ...] = ("memory_used", "memory_total", "memory_free")


class MetricsStep:
    """Step 2 on the wizard's shared form: the label and expression fields, and their Tests' results."""

    def __init__(self, form: WizardForm) -> None:
        self.form = form
        self.t = form.t
        self.draft = form.draft
        self.results: dict[str, ui.column] = {}
        self.second_input: ui.input | None = None

    def render(self) -> None:
        ui.label(self.t("wizard.labels.title")).classes("text-lg font-semibold")
        ui.label(self.t("wizard.labels.help")).classes(render.NOTE_CLASSES)
        self.form.error_slot("labels")
        with ui.grid(columns=2).classes("w-full gap-2"):
            self.form.field("labels.node", "wizard.label.node")
            self.form.field("labels.device", "wizard.label.device")
            self.form.field("labels.pod", "wizard.label.pod", optional=True)
            self.form.field("labels.namespace", "wizard.label.namespace", optional=True)
        ui.label(self.t("wizard.metrics.title")).classes("text-lg font-semibold mt-4")
        self.form.error_slot("metrics")
        first, *rest = _EXPRESSIONS
        self.expression_card(*first)
        self.memory_card()
        for slot, label_key, keys in rest:
            self.expression_card(slot, label_key, keys, optional=True)
        self.form.navigation(back=1, forward=lambda: self.form.go_on(3), forward_key="wizard.next")

    def expression_card(
        self, slot: str, label_key: str, keys: tuple[MetricKey, ...], *, optional: bool = False
    ) -> None:
        with ui.card().classes("w-full").props("flat bordered"):
            with ui.row().classes("w-full items-start gap-2 no-wrap"):
                with ui.column().classes("grow gap-0"):
                    self.form.field(slot, label_key, optional=optional, hint_key=_HINTS.get(slot))
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
                        on_change=lambda event: self.form.set_value("metrics.memory.unit", event.value),
                    ).props("outlined dense").classes("w-32").mark("metrics.memory.unit")
                    self.form.error_slot("metrics.memory.unit")
                self.test_button("metrics.memory.used", _MEMORY_KEYS)
            self.form.field("metrics.memory.used", "wizard.memory.used")
            self.results["metrics.memory.used"] = (
                ui.column().classes("w-full gap-1").mark("result-metrics.memory.used")
            )
            with ui.column().classes("w-full gap-0"):
                self.second_input = ui.input(
                    self.second_label(),
                    value=self.draft.get(second_memory_field(self.draft), ""),
                    on_change=lambda event: self.form.set_value(second_memory_field(self.draft), event.value),
                )
                self.second_input.classes("w-full").props("outlined dense").mark(MEMORY_SECOND)
                self.form.error_slot(MEMORY_SECOND)
            self.results[MEMORY_SECOND] = ui.column().classes("w-full gap-1").mark(f"result-{MEMORY_SECOND}")

    def second_label(self) -> str:
        return self.t(
            "wizard.memory.total" if memory_mode(self.draft) == "used_total" else "wizard.memory.free"
        )

    def mode_changed(self, mode: Any) -> None:
        self.draft["metrics.memory.mode"] = "used_free" if mode == "used_free" else "used_total"
        self.form.errors[MEMORY_SECOND].set_text("")
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
        self.form.clear_errors()
        for slot in slots:
            self.results[slot].clear()
        try:
            labels, metrics = check_drafts(self.draft)
        except DraftErrors as exc:
            self.form.show_errors(exc.errors)
            return
        for slot in slots:
            with self.results[slot]:
                ui.label(self.t("wizard.test.running")).classes(render.NOTE_CLASSES)
        try:
            # An edited type's values are judged by its own fetcher's rules, as its save will be.
            check = await context.services().catalog.check_metrics(
                self.form.visitor.principal, labels, metrics, fetcher=fetcher_of(self.draft)
            )
        except NufiError as exc:
            for slot in slots:
                self.results[slot].clear()
            self.form.show_errors(service_errors(exc))
            return
        for slot in slots:
            self.results[slot].clear()
        self.form.show_errors(
            {f"labels.{name}": why.message() for name, why in check.label_error_messages.items()}
        )
        shown = [key for key in keys if key in check.results]
        if not shown:
            with self.results[RESULT_SLOT[keys[0]]]:
                ui.label(self.t("wizard.test.empty")).classes(render.NOTE_CLASSES).mark("metric-empty")
        for key in shown:
            with self.results[RESULT_SLOT[key]]:
                render.metric_result(
                    self.t, check.results[key], self.memory_unit() if key in _MEMORY_KEYS else None
                )

    def memory_unit(self) -> MemoryUnit:
        """The unit the memory expressions report in, as chosen (bytes when the draft names none)."""
        try:
            return MemoryUnit(self.draft.get("metrics.memory.unit", ""))
        except ValueError:
            return MemoryUnit.BYTES
