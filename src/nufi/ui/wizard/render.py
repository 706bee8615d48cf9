"""How the wizard shows what the catalog's checks answered: the resource key's presence on the nodes,
and one metric expression's series, sample, missing labels and implausible values."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from nicegui import ui

from nufi.devices.checks import MetricCheck, RegisteredType, ResourceKeyCheck
from nufi.devices.units import MemoryUnit, to_bytes
from nufi.messages import MessageModel
from nufi.models.units import human_bytes
from nufi.ui.i18n import Translator

ERROR_CLASSES = "text-red-700 text-sm whitespace-pre-line"
OK_CLASSES = "text-green-700 text-sm"
NOTE_CLASSES = "text-slate-600 text-sm"
WARNING_CLASSES = "text-amber-700 text-sm"


def key_registered(t: Translator, owner: RegisteredType, link: str) -> None:
    """The type that already uses the key, with a `link` to its edit page."""
    with ui.row().classes("items-center gap-1").mark("key-registered"):
        ui.label(t("wizard.key.registered", name=owner.name, id=owner.id)).classes(WARNING_CLASSES)
        ui.link(t("wizard.key.registered_link"), link).classes("text-sm").mark("key-registered-link")


def key_found(t: Translator, check: ResourceKeyCheck) -> None:
    """The ✓ with per-node capacity; or, for a valid key no node has, what is wrong and how to fix it."""
    if check.found:
        offering = [node for node in check.nodes if node.capacity > 0]
        ui.label(t("wizard.key.found")).classes(OK_CLASSES).mark("key-found")
        ui.label(
            t(
                "wizard.key.totals",
                capacity=sum(node.capacity for node in offering),
                allocatable=sum(node.allocatable for node in offering),
                nodes=len(offering),
            )
        ).classes(NOTE_CLASSES)
    else:
        # Amber, not red: a valid key may be saved before its device plugin is installed (Next asks).
        ui.label(t("wizard.key.not_found")).classes(WARNING_CLASSES).mark("key-not-found")
        ui.label(t.message(check.code, check.params)).classes(WARNING_CLASSES).mark("key-presence")
    if check.nodes:
        columns = [
            {"name": name, "label": t(f"wizard.column.{name}"), "field": name, "align": "left"}
            for name in ("node", "capacity", "allocatable")
        ]
        rows = [
            {"node": node.name, "capacity": node.capacity, "allocatable": node.allocatable}
            for node in check.nodes
        ]
        ui.table(columns=columns, rows=rows, row_key="node").props("dense flat bordered").classes(
            "w-full max-w-xl"
        ).mark("key-nodes")


def key_invalid(t: Translator, detail: str, problems: Sequence[MessageModel]) -> None:
    """Each broken rule of a resource key, worded from the catalog; `detail` (already in the reader's
    language) when the service named none."""
    ui.label(t("wizard.key.invalid")).classes(ERROR_CLASSES).mark("key-invalid")
    if not problems:
        ui.label(detail).classes(ERROR_CLASSES)
    for problem in problems:
        ui.label(f"• {t.message(problem.code, problem.params)}").classes(ERROR_CLASSES).mark("key-problem")


def key_unreadable(t: Translator, detail: str) -> None:
    ui.label(t("wizard.key.unavailable")).classes(ERROR_CLASSES).mark("key-unavailable")
    ui.label(detail).classes(ERROR_CLASSES)


def metric_result(t: Translator, result: MetricCheck, memory_unit: MemoryUnit | None = None) -> None:
    """One expression's verdict: its error, "no series yet" or ✓, the series count, missing labels,
    warnings (implausible values among them), and a few sample values. Each is said once: the error
    already names the labels it misses, and the service's own "no series yet" is the amber verdict.
    A memory expression's samples (`memory_unit`: the unit it reports in) read as sizes, e.g. 16.0 GiB."""
    warnings = list(result.warning_messages)
    if result.error_message is not None:
        metric_error(t, result.error_message)
    elif result.series == 0:
        # It parses and Prometheus answers, but nothing proves it measures anything yet.
        ui.label(_no_series(t, warnings)).classes(WARNING_CLASSES).mark("metric-no-series")
    else:
        ui.label(t("wizard.test.ok")).classes(OK_CLASSES).mark("metric-ok")
    if result.series:
        ui.label(t("wizard.test.series", count=result.series)).classes(NOTE_CLASSES).mark("metric-series")
    if result.missing_labels and result.error_message is None:
        ui.label(t("wizard.test.missing_labels", labels=", ".join(result.missing_labels))).classes(
            ERROR_CLASSES
        ).mark("metric-missing")
    for warning in warnings:
        ui.label(f"⚠ {t.message(warning.code, warning.params)}").classes(WARNING_CLASSES).mark(
            "metric-warning"
        )
    if result.sample:
        columns = [
            {"name": name, "label": t(f"wizard.column.{name}"), "field": name, "align": "left"}
            for name in ("node", "device", "value")
        ]
        not_measured = t("wizard.test.not_measured")
        rows = [
            {
                "key": index,
                "node": point.node or "—",
                "device": point.device or "—",
                "value": not_measured if point.value is None else sample_value(point.value, memory_unit),
            }
            for index, point in enumerate(result.sample)
        ]
        ui.table(columns=columns, rows=rows, row_key="key").props("dense flat bordered").classes(
            "w-full max-w-xl"
        ).mark("metric-sample")


def _no_series(t: Translator, warnings: list[MessageModel]) -> str:
    """The service's "no series yet" (taken out of `warnings`, naming the expression and what to do),
    as a sentence of its own; the wizard's general one when the service gave none."""
    said = next((warning for warning in warnings if warning.code == "metric_check.no_series"), None)
    if said is None:
        return t("wizard.test.no_series")
    warnings.remove(said)
    return t.sentence(said.code, said.params)


def sample_value(value: float, memory_unit: MemoryUnit | None = None) -> str:
    """A sample, readable: memory (reported in `memory_unit`) as a size the way Monitoring shows it,
    other large values whole with separators, the rest with up to six significant digits."""
    if memory_unit is not None and math.isfinite(value):
        return human_bytes(to_bytes(value, memory_unit)) or ""
    if abs(value) >= 1e6 and value == value and abs(value) != float("inf"):
        return f"{value:,.0f}"
    return f"{value:.6g}"


def metric_error(t: Translator, error: MessageModel) -> None:
    """An expression's error in the reader's language; the PromQL parser's own words, when that is
    what the error quotes, only as a technical fragment in a <code> element below it."""
    quoted = _parser_words(error)
    if quoted is None:
        ui.label(t.message(error.code, error.params)).classes(ERROR_CLASSES).mark("metric-error")
        return
    expression, reason = quoted
    said = t.message("metric_check.unparsable_quoted", {"expression": expression})
    ui.label(said).classes(ERROR_CLASSES).mark("metric-error")
    ui.html(f"<code>{html.escape(reason)}</code>").classes("text-xs text-slate-600 whitespace-pre-wrap").mark(
        "metric-parser-words"
    )


def _parser_words(error: MessageModel) -> tuple[str, str] | None:
    """The expression and the parser's message of an error that quotes the PromQL parser."""
    problem = error.params.get("problem")
    if error.code != "metric_check.unparsable" or not isinstance(problem, dict):
        return None
    params = problem.get("params") or {}
    if problem.get("code") != "promql.syntax" or not isinstance(params, dict):
        return None
    return str(params.get("expression", "")), str(params.get("reason", ""))
