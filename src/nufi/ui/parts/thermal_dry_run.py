"""A dry run's answer under a policy card: per node (or device) its trips and time cut, each would-be
trip with its condition, and where the circuit breaker would have kept traffic on."""

from __future__ import annotations

from datetime import UTC, datetime

from nicegui import ui

from nufi.thermal.protection.dry_run import DryRun
from nufi.thermal.protection.replay import Episode
from nufi.ui.i18n import Translator
from nufi.ui.parts.moments import moment_cell_slot, utc_text
from nufi.ui.parts.thermal_chips import condition_name


def replayed(t: Translator, ran: DryRun, name: str) -> None:
    ui.label(t("thermal.dry_run.title", device_type=name)).classes("font-medium")
    conditions = ", ".join(_condition(t, ran, c) for c in ran.conditions)
    ui.label(t("thermal.dry_run.conditions", conditions=conditions)).classes("text-sm text-gray-600")
    # Why a condition switched on was left out (or can trip nothing): the type lacks what it reads.
    for left_out in ran.left_out:
        ui.label(t.message(left_out.code, left_out.params)).classes("text-sm text-amber-800").props(
            'data-testid="thermal-dry-run-left-out"'
        )
    rows = [
        {
            "key": node.key,
            "trips": sum(1 for tr in node.transitions if tr.to != "normal"),
            "cut": _minutes(node.cut_seconds),
            "held": _minutes(node.held_seconds),
            "max": "—" if node.max_temperature is None else f"{node.max_temperature:.1f} °C",
        }
        for node in ran.nodes
    ]
    columns = [
        {"name": n, "label": t(f"thermal.dry_run.{n}"), "field": n, "align": "left"}
        for n in ("key", "trips", "cut", "held", "max")
    ]
    table = ui.table(columns=columns, rows=rows, row_key="key").classes("w-full")
    table.props(f'dense flat no-data-label="{t("thermal.dry_run.empty")}" data-testid="thermal-dry-run"')
    _episodes(t, ran)
    _breaker(t, ran)


def _episodes(t: Translator, ran: DryRun) -> None:
    """Each would-be trip, where, of which condition, from when to when, and how bad it got."""
    ui.label(t("thermal.dry_run.episodes", step=f"{ran.step_seconds:g}")).classes("font-medium mt-2")
    rows = [
        {
            "id": f"{e.node}/{e.device}/{e.condition}/{e.start}",
            "where": e.node if e.device is None else f"{e.node}/{e.device}",
            "condition": _condition(t, ran, e.condition),
            **_instant("start", e.start),
            **_instant("end", e.end, t("thermal.dry_run.ongoing")),
            "peak": _peak(t, e),
            "held": _minutes(e.held_seconds),
        }
        for e in ran.episodes
    ]
    labels = {
        "where": t("thermal.dry_run.episode_where"),
        "condition": t("thermal.dry_run.episode_condition"),
        "start": t("thermal.dry_run.episode_start"),
        "end": t("thermal.dry_run.episode_end"),
        "peak": t("thermal.dry_run.episode_peak"),
        "held": t("thermal.dry_run.episode_held"),
    }
    columns = [{"name": n, "label": label, "field": n, "align": "left"} for n, label in labels.items()]
    table = ui.table(columns=columns, rows=rows, row_key="id").classes("w-full")
    empty = t("thermal.dry_run.no_episodes")
    table.props(f'dense flat no-data-label="{empty}" data-testid="thermal-dry-run-episodes"')
    table.add_slot("body-cell-start", moment_cell_slot("start"))
    table.add_slot("body-cell-end", _end_slot())


def _breaker(t: Translator, ran: DryRun) -> None:
    """Where more nodes were affected than the breaker allows: when, and which kept their traffic."""
    if not ran.breaker:
        ui.label(t("thermal.dry_run.no_breaker")).classes("text-sm mt-2").mark("thermal-dry-run-breaker")
        return
    first = ran.breaker[0]
    ui.label(
        t("thermal.dry_run.breaker", count=len(ran.breaker), allowed=first.allowed, total=first.total_nodes)
    ).classes("font-medium mt-2 text-amber-800").mark("thermal-dry-run-breaker")
    rows = [
        {
            "id": str(held.start),
            **_instant("start", held.start),
            **_instant("end", held.end, t("thermal.dry_run.breaker_ongoing")),
            "waiting": ", ".join(held.waiting),
        }
        for held in ran.breaker
    ]
    labels = {
        "start": t("thermal.dry_run.episode_start"),
        "end": t("thermal.dry_run.episode_end"),
        "waiting": t("thermal.dry_run.breaker_waiting"),
    }
    columns = [{"name": n, "label": label, "field": n, "align": "left"} for n, label in labels.items()]
    table = ui.table(columns=columns, rows=rows, row_key="id").classes("w-full")
    table.props('dense flat data-testid="thermal-dry-run-breaker-holds"')
    table.add_slot("body-cell-start", moment_cell_slot("start"))
    table.add_slot("body-cell-end", _end_slot())


def _condition(t: Translator, ran: DryRun, condition: str) -> str:
    if condition == "custom":
        return condition_name(t, ran.policy.custom)
    return t("thermal.state.unhealthy" if condition == "unhealthy" else "thermal.dry_run.temperature")


def _peak(t: Translator, episode: Episode) -> str:
    if episode.condition == "temperature":
        return f"{episode.peak:.1f} °C"
    if episode.condition == "unhealthy":
        return t("thermal.state.unhealthy")
    return f"{episode.peak:g}"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f}"


def _instant(column: str, at: float | None, ongoing: str = "") -> dict[str, str]:
    """A row's cells for `moment_cell_slot(column)`; an episode still going says so instead."""
    if at is None:
        return {column: "", f"{column}_utc": ongoing}
    instant = datetime.fromtimestamp(at, UTC)
    return {column: instant.isoformat(), f"{column}_utc": utc_text(instant)}


def _end_slot() -> str:
    # An episode still going has no end instant: its words, not a time, fill the cell.
    return (
        '<q-td key="end" :props="props">'
        '<time v-if="props.value" data-local :datetime="props.value" :title="props.row.end_utc">'
        "{{ props.row.end_utc }}</time><span v-else>{{ props.row.end_utc }}</span></q-td>"
    )
