"""Monitoring: one tab per enabled device type, its summary, and a paged table of its devices.

Everything comes from the monitoring service, whose refreshers evaluate each type once per interval
for the whole replica: the page's timer only re-reads the latest shared snapshot, so a hundred open
tabs cost Prometheus nothing more than one. Paging and filtering happen in the service too, so a
1,000-node type sends the browser one page of rows.

A device with a firing alert (or every row of a node whose exporter is down or misses devices) gets a
red mark whose tooltip says what fires: one alerts read of the type per refresh, and a read that fails
leaves the marks off rather than the page waiting or failing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from nicegui import ui

from nufi.errors import NufiError
from nufi.models.units import celsius, memory, percent, watts
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT
from nufi.monitoring.snapshots.overview import Overview
from nufi.monitoring.snapshots.paging import PageQuery
from nufi.monitoring.snapshots.snapshot import Snapshot
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.alert_rows import Where, mark_chips, marks
from nufi.ui.parts.charts import Charts
from nufi.ui.parts.device_state import DataState, device_state
from nufi.ui.parts.gate import Visitor
from nufi.ui.parts.thermal_chips import chips_slot
from nufi.ui.rebuilt import Rebuilt
from nufi.ui.skeleton import Visit

PATH = "/"
NODES_PER_PAGE = 25
# The alerts are read from Prometheus itself, not from the shared snapshot: a slow answer leaves the
# marks off for this refresh rather than holding the page's values back.
MARKS_WAIT_SECONDS = 2.0


class MonitoringView:
    """One open monitoring page: what it shows and which page of which type."""

    def __init__(self, who: Visitor, t: Translator, selected: str | None) -> None:
        self.visitor = who
        self.t = t
        self.selected = selected
        self.node_filter = ""
        # The tokens of the pages up to the current one, so "previous" can go back.
        self.tokens: list[str | None] = [None]
        self.overview: Overview | None = None
        self.overview_error: str | None = None
        # What the panel shows now, so the timer can update it in place.
        self._table: ui.table | None = None
        self._age: ui.label | None = None
        self._late: _LateBanner | None = None
        self._cards: dict[str, ui.label] = {}
        self._shown_time: float | None = None
        self._marks: dict[Where, list[str]] = {}
        self.content = Rebuilt(self._content)
        self.panel = Rebuilt(self._panel)

    def types(self) -> list[str]:
        return [row.device_type.id for row in self.overview.rows] if self.overview else []

    async def read_overview(self) -> None:
        try:
            self.overview = await context.services().monitoring.overview(self.visitor.principal)
            self.overview_error = None
        except NufiError as exc:
            self.overview, self.overview_error = None, exc.text(self.t.language)
        if self.selected not in self.types():
            self.selected = self.types()[0] if self.types() else None

    async def _content(self) -> None:
        t = self.t
        ui.label(t("monitoring.title")).classes("text-2xl font-semibold")
        if self.overview_error is not None:
            ui.label(t("monitoring.unavailable", detail=self.overview_error)).classes("text-red-700").props(
                'data-testid="monitoring-unavailable"'
            )
            return
        rows = self.overview.rows if self.overview else ()
        if not rows:
            ui.label(t("monitoring.empty")).props('data-testid="monitoring-empty"')
            return
        with ui.tabs(on_change=lambda event: self.select(event.value)).props("no-caps align=left") as tabs:
            made = {
                row.device_type.id: ui.tab(row.device_type.id, label=row.device_type.name).props(
                    f'data-testid="tab-{row.device_type.id}"'
                )
                for row in rows
            }
        if self.selected is not None:
            tabs.set_value(made[self.selected])
        await self.panel.show()

    async def select(self, device_type_id: Any) -> None:
        if str(device_type_id) == self.selected:
            return
        self.selected = str(device_type_id)
        self.tokens = [None]
        await self.panel.show()

    async def _panel(self) -> None:
        t = self.t
        if self.selected is None:
            return
        query = PageQuery(node=self.node_filter or None, limit=NODES_PER_PAGE, continue_token=self.tokens[-1])
        try:
            page = await context.services().monitoring.snapshot_page(
                self.visitor.principal, self.selected, query
            )
        except NufiError as exc:
            ui.label(t("monitoring.unavailable", detail=exc.text(t.language))).classes("text-red-700")
            return
        snapshot = page.snapshot
        self._shown_time = snapshot.time
        self._marks = await self._read_marks()
        self._cards = _cards(snapshot, t)
        with ui.row().classes("items-center gap-4 w-full"):
            search = ui.input(t("monitoring.filter.node"), value=self.node_filter)
            search.props('clearable dense data-testid="node-filter"').classes("w-64")
            search.on("keydown.enter", lambda: self.filter(search.value))
            search.on("clear", lambda: self.filter(""))
            self._age = ui.label(t("monitoring.updated", age=f"{snapshot.age_seconds:.0f}"))
            self._age.classes("text-sm text-slate-500")
        self._late = _LateBanner(t)
        self._late.show(snapshot)
        self._table = ui.table(
            columns=_columns(t), rows=_rows(snapshot, t, _thermal(snapshot), self._marks), row_key="key"
        )
        self._table.classes("w-full").props('dense flat bordered data-testid="devices-table"')
        self._table.add_slot("body-cell-state", chips_slot("state_chips"))
        first = (len(self.tokens) - 1) * NODES_PER_PAGE + 1
        last = first + len(snapshot.nodes) - 1
        with ui.row().classes("items-center gap-2"):
            shown = t(
                "monitoring.page",
                first=min(first, page.matched_nodes),
                last=last,
                total=page.matched_nodes,
            )
            ui.label(shown).props('data-testid="page-position"')
            previous = ui.button(t("monitoring.previous"), on_click=self.back)
            previous.props("flat dense no-caps").set_enabled(len(self.tokens) > 1)
            following = ui.button(t("monitoring.next"), on_click=lambda: self.forward(page.continue_token))
            following.props("flat dense no-caps").set_enabled(page.continue_token is not None)
        # Late data is said above the table, not as data that could not be read.
        errors = [error for error in snapshot.errors if error is not snapshot.late]
        if errors:
            with ui.expansion(t("monitoring.errors"), icon="warning").classes("w-full text-amber-800"):
                for error in errors[:20]:
                    said = (
                        error.message if error.said is None else t.message(error.said.code, error.said.params)
                    )
                    ui.label(f"{error.source}: {said}").classes("text-sm")
        Charts(self.visitor.principal, t, self.selected).build()

    async def _read_marks(self) -> dict[Where, list[str]]:
        """The firing alerts of the shown type by device and node; none when they cannot be read (the
        page shows its values all the same, and the next refresh tries again)."""
        if self.selected is None:
            return {}
        try:
            async with asyncio.timeout(MARKS_WAIT_SECONDS):
                view = await context.services().alerts.alerts(
                    self.visitor.principal, device_type=self.selected
                )
        except (NufiError, TimeoutError):
            return {}
        return marks(view.alerts, self.t, view.type_names)

    async def filter(self, value: str | None) -> None:
        self.node_filter = (value or "").strip()
        self.tokens = [None]
        await self.panel.show()

    async def forward(self, token: str | None) -> None:
        if token is not None:
            self.tokens.append(token)
            await self.panel.show()

    async def back(self) -> None:
        if len(self.tokens) > 1:
            self.tokens.pop()
            await self.panel.show()

    async def tick(self) -> None:
        known = self.types()
        await self.read_overview()
        if self.types() != known:
            await self.content.show()  # a type registered (or removed) appears without a reload
        elif len(self.tokens) == 1:
            await self.follow()  # the first page follows the live values; later pages keep theirs

    async def follow(self) -> None:
        """The first page's values from the latest snapshot, updated in place (the filter keeps its
        focus and the table its scroll position)."""
        if self.selected is None or self._table is None:
            return
        query = PageQuery(node=self.node_filter or None, limit=NODES_PER_PAGE)
        try:
            page = await context.services().monitoring.snapshot_page(
                self.visitor.principal, self.selected, query
            )
        except NufiError:
            await self.panel.show()  # the panel says what is wrong
            return
        snapshot = page.snapshot
        assert self._age is not None and self._late is not None
        self._age.set_text(self.t("monitoring.updated", age=f"{snapshot.age_seconds:.0f}"))
        self._late.show(snapshot)
        found = await self._read_marks()
        if snapshot.time == self._shown_time and found == self._marks:
            return
        self._shown_time, self._marks = snapshot.time, found
        self._table.rows = _rows(snapshot, self.t, _thermal(snapshot), found)
        self._table.update()
        for key, value in _card_values(snapshot):
            self._cards[key].set_text(value if value is not None else self.t("monitoring.not_reported"))


class _LateBanner:
    """Above the table while the metrics engine shows the type's data late (beyond the staleness limit):
    how late, that thermal control waits meanwhile, and what to check; hidden once it is in time."""

    def __init__(self, t: Translator) -> None:
        self._t = t
        with ui.column().classes("w-full gap-1 p-3 rounded bg-amber-50 border border-amber-300") as box:
            self._headline = ui.label().classes("font-semibold text-amber-900")
            self._why = ui.label().classes("text-sm text-amber-900")
        self._box = box.props('data-testid="metrics-late" role="alert"').mark("metrics-late")

    def show(self, snapshot: Snapshot) -> None:
        late = snapshot.late
        self._box.set_visibility(late is not None)
        if late is None or late.said is None:
            return
        self._headline.set_text(self._t("monitoring.late", lag=f"{snapshot.lag_seconds:.0f}"))
        self._why.set_text(self._t.sentence(late.said.code, late.said.params))


def _card_values(snapshot: Snapshot) -> list[tuple[str, str | None]]:
    summary = snapshot.summary
    return [
        ("monitoring.card.nodes", str(summary.nodes)),
        ("monitoring.card.devices", str(summary.devices)),
        ("monitoring.card.utilization", percent(summary.avg_utilization_percent)),
        ("monitoring.card.memory", memory(summary.memory_used_bytes, summary.memory_total_bytes)),
        ("monitoring.card.temperature", celsius(summary.max_temperature_celsius)),
        ("monitoring.card.power", watts(summary.power_watts)),
    ]


def _cards(snapshot: Snapshot, t: Translator) -> dict[str, ui.label]:
    shown: dict[str, ui.label] = {}
    with ui.row().classes("gap-4 w-full"):
        for key, value in _card_values(snapshot):
            with ui.card().classes("min-w-40").props(f'data-testid="card-{key.rsplit(".", 1)[1]}"'):
                ui.label(t(key)).classes("text-sm text-slate-500")
                shown[key] = ui.label(value if value is not None else t("monitoring.not_reported"))
                shown[key].classes("text-xl font-semibold")
    return shown


def _columns(t: Translator) -> list[dict[str, Any]]:
    names = ["node", "device", "utilization", "memory", "temperature", "power", "pod", "namespace", "state"]
    return [
        {"name": name, "label": t(f"monitoring.column.{name}"), "field": name, "align": "left"}
        for name in names
    ]


def _thermal(snapshot: Snapshot) -> Mapping[str, str]:
    """The nodes thermal control has cut (`hot`) or cannot read (`stale`), for the state column."""
    return context.services().thermal.marked_nodes(snapshot.device_type)


def _rows(
    snapshot: Snapshot, t: Translator, thermal: Mapping[str, str], alerts: Mapping[Where, list[str]]
) -> list[dict[str, Any]]:
    missing = t("monitoring.not_reported")
    stale = {(s.node, s.device) for s in snapshot.stale}
    implausible = {(e.node, e.device) for e in snapshot.errors if e.source == "plausibility"}
    rows: list[dict[str, Any]] = []
    for node in snapshot.nodes:
        if not node.devices:
            rows.append(
                {
                    "key": node.node,
                    "node": node.node,
                    "device": "—",
                    **device_state(
                        t,
                        "not_reporting",
                        "unknown",
                        thermal.get(node.node),
                        mark_chips(alerts, t, node.node, None),
                    ),
                }
            )
            continue
        for device in node.devices:
            key = (node.node, device.device)
            data: DataState | None = (
                "stale" if key in stale else "implausible" if key in implausible else None
            )
            rows.append(
                {
                    "key": f"{node.node}/{device.device}",
                    "node": node.node,
                    "device": device.device,
                    "utilization": percent(device.utilization_percent) or missing,
                    "memory": memory(device.memory_used_bytes, device.memory_total_bytes) or missing,
                    "temperature": celsius(device.temperature_celsius) or missing,
                    "power": watts(device.power_watts) or missing,
                    "pod": _named(device.pod, t),
                    "namespace": _named(device.namespace, t),
                    **device_state(
                        t,
                        data,
                        device.health,
                        thermal.get(node.node),
                        mark_chips(alerts, t, node.node, device.device),
                    ),
                }
            )
    return rows


def _named(name: str | None, t: Translator) -> str:
    """A pod's or namespace's name; one of a project the reader is not in, said so in their language."""
    return t("monitoring.another_project") if name == ANOTHER_PROJECT else name or ""


async def build(visit: Visit) -> None:
    view = MonitoringView(visit.who, visit.t, visit.param("type") or None)
    await view.read_overview()
    await view.content.show()
    ui.timer(context.services().monitoring.settings.refresh_seconds, view.tick)
