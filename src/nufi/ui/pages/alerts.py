"""Alerts: the alerts of NuFi's generated rules that are firing or pending now, for everyone, live.

The list is Prometheus' own (`AlertService.alerts`), masked like Monitoring: pods of projects the
reader is not a member of read "another project". Above it, where the rules are written and whether
the last pass went well, and a link to Alertmanager where one is configured (both in full for admins
only: `AlertService` words them neutrally for everyone else). A page that cannot read
Prometheus says so and keeps trying on every refresh.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from nicegui import ui

from nufi.alerts.service import AlertsView
from nufi.alerts.sync import RulesStatus
from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.alert_rows import alert_row, since_slot
from nufi.ui.parts.thermal_chips import chips_slot
from nufi.ui.parts.workload_forms import type_names
from nufi.ui.skeleton import Visit

PATH = "/alerts"
# Each column with its header's key, written out so the catalog check sees every key.
COLUMNS = {
    "state": "alerting.column.state",
    "severity": "alerting.column.severity",
    "device_type": "alerting.column.device_type",
    "node": "alerting.column.node",
    "device": "alerting.column.device",
    "pod": "alerting.column.pod",
    "value": "alerting.column.value",
    "since": "alerting.column.since",
    "summary": "alerting.column.summary",
}
_TARGETS = {
    "file": "alerting.target.file",
    "prometheusrule": "alerting.target.prometheusrule",
    "none": "alerting.target.none",
}
# Short values a line break would only garble (a node name split at its hyphen, a Korean word).
_NO_WRAP = {"state", "severity", "device_type", "node", "device", "value"}


async def build(visit: Visit) -> None:
    page = AlertsPage(visit, visit.param("type") or None)
    await page.draw()
    ui.timer(context.services().monitoring.settings.refresh_seconds, page.refresh)


class AlertsPage:
    """One open Alerts page: the filter, the rules' status line and the table, refreshed in place."""

    def __init__(self, visit: Visit, device_type: str | None) -> None:
        self.who = visit.who
        self.t = visit.t
        self.frame = visit.frame
        self.device_type = device_type

    async def draw(self) -> None:
        t = self.t
        ui.label(t("alerting.title")).classes("text-2xl font-semibold")
        ui.label(t("alerting.intro")).classes("text-slate-600 max-w-3xl")
        names = await type_names(self.who.principal)
        options = {"": t("alerting.filter.all")} | names
        if self.device_type not in options:
            self.device_type = None
        with ui.row().classes("items-center gap-4 w-full flex-wrap"):
            ui.select(
                options, value=self.device_type or "", label=t("alerting.filter.type"), on_change=self._filter
            ).classes("min-w-[14rem]").props('dense data-testid="alerts-type"').mark("alerts-type")
            self.status = ui.row().classes("items-center gap-2 text-sm").mark("alerts-rules")
            self.status.props('data-testid="alerts-rules"')
        self.error = ui.label("").classes("text-red-700").props('data-testid="alerts-unavailable"')
        self.error.mark("alerts-unavailable")
        self.empty = ui.label(t("alerting.empty")).classes("text-slate-600 text-lg")
        self.empty.props('data-testid="alerts-empty"').mark("alerts-empty")
        self.table = ui.table(columns=_columns(t), rows=[], row_key="key").classes("w-full")
        self.table.props('dense flat bordered wrap-cells data-testid="alerts-table"').mark("alerts-table")
        self.table.add_slot("body-cell-state", chips_slot("state_chips"))
        self.table.add_slot("body-cell-since", since_slot())
        self._shown_status: RulesStatus | None = None
        await self.refresh()

    async def _filter(self, event: Any) -> None:
        self.device_type = str(event.value or "") or None
        # The language links bring the reader back to the type they chose.
        self.frame.returns_to(f"{PATH}?{urlencode({'type': self.device_type})}" if self.device_type else PATH)
        await self.refresh()

    async def refresh(self) -> None:
        """The page's one read per refresh; rows and status are sent again only when they changed."""
        try:
            view = await context.services().alerts.alerts(self.who.principal, device_type=self.device_type)
        except NufiError as exc:
            self.error.set_text(self.t("alerting.unavailable", detail=exc.text(self.t.language)))
            self._show(error=True, empty=False)
            # Where the rules are written does not depend on Prometheus answering.
            self._rules(context.services().alerts.rules_only(self.who.principal))
            return
        self.error.set_text("")
        self._rules(view)
        rows = [alert_row(alert, self.t, view.type_names) for alert in view.alerts]
        if rows != self.table.rows:
            self.table.rows = rows
            self.table.update()
        self._show(error=False, empty=not rows)

    def _show(self, *, error: bool, empty: bool) -> None:
        self.error.set_visibility(error)
        self.empty.set_visibility(empty)
        self.table.set_visibility(not error and not empty)

    def _rules(self, view: AlertsView) -> None:
        status = view.rules
        if status == self._shown_status:
            return
        self._shown_status = status
        t = self.t
        self.status.clear()
        with self.status:
            if status.ok:
                ui.icon("check_circle").classes("text-green-700")
                target = t(_TARGETS.get(status.target, "alerting.target.none"))
                # Where exactly is for admins only; others are told the kind of place.
                if status.location:
                    said = t(
                        "alerting.rules.ok",
                        groups=len(status.groups),
                        target=target,
                        location=status.location,
                    )
                else:
                    said = t("alerting.rules.written", groups=len(status.groups), target=target)
                ui.label(said).classes("break-all")
            elif status.problem is not None:
                # Red when writing them failed; grey when none are to be written (NUFI_ALERTS_TARGET=off,
                # or nowhere to write them), which is the operator's choice rather than a fault.
                colour = "text-red-700" if status.configured else "text-slate-600"
                ui.icon("error" if status.configured else "info").classes(colour)
                problem = t.message(status.problem.code, status.problem.params)
                ui.label(t("alerting.rules.problem", problem=problem)).classes(colour)
            else:
                ui.icon("hourglass_empty").classes("text-slate-500")
                ui.label(t("alerting.rules.not_yet"))
            if view.alertmanager_url:
                ui.link(t("alerting.alertmanager"), view.alertmanager_url, new_tab=True).props(
                    'data-testid="alerts-alertmanager"'
                )


def _columns(t: Translator) -> list[dict[str, Any]]:
    columns = []
    for name, key in COLUMNS.items():
        column: dict[str, Any] = {
            "name": name,
            "label": t(key),
            "field": name,
            "align": "left",
        }
        if name in _NO_WRAP:
            column |= {"classes": "text-no-wrap", "headerClasses": "text-no-wrap"}
        columns.append(column)
    return columns
