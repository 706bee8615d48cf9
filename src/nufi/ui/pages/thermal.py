"""Admin → Thermal: each device type's temperature policy (edit, save, dry run over history), the live
state of every node thermal control watches, and the history of transitions.

The live table reads the controller's latest pass (in memory, no Prometheus query per page); only
admins see the page, and the services refuse anyone else anyway. One timer refreshes the whole page in
place: the live table, each policy card (a save here or by another admin; fields being edited are left
alone) and the history.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from nicegui import ui
from pydantic import ValidationError

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.thermal.history import ThermalEvent
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.service import PolicyEntry
from nufi.thermal.status import NodeStatus
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.thermal_policy import PolicyCard
from nufi.ui.skeleton import Visit

PATH = "/admin/thermal"
LIVE_SECONDS = 2.0
HISTORY_ROWS = 50


async def build(visit: Visit) -> None:
    who, t = visit.who, visit.t
    ui.label(t("thermal.title")).classes("text-2xl font-semibold")
    ui.label(t("thermal.intro")).classes("text-slate-600 max-w-3xl")
    try:
        entries = await context.services().thermal.policies(who.principal)
    except NufiError as exc:
        ui.label(exc.text(t.language)).classes("text-red-700")
        return
    ui.label(t("thermal.live")).classes("text-xl font-semibold mt-4")
    live = ui.table(columns=_live_columns(t), rows=[], row_key="key").classes("w-full").mark("thermal-live")
    live.props(
        'dense flat bordered data-testid="thermal-live" no-data-label="' + t("thermal.live.empty") + '"'
    )
    ui.label(t("thermal.policies")).classes("text-xl font-semibold mt-4")
    policies = _Policies(who.principal, t, entries)
    ui.label(t("thermal.history")).classes("text-xl font-semibold mt-4")
    history = _history_table(t)

    async def refresh() -> None:
        # One pass for the whole page: the controller's state, the stored policies (saved here or by
        # another admin) and the transitions recorded since.
        services = context.services().thermal
        _show_rows(live, await _live_rows(who.principal, t))
        policies.show(await services.policies(who.principal))
        _show_rows(history, await _history_rows(who.principal, t))

    await refresh()
    ui.timer(LIVE_SECONDS, refresh)


class _Policies:
    """The policy cards, one per device type in the catalog's order, kept as the catalog changes."""

    def __init__(self, principal: Principal, t: Translator, entries: list[PolicyEntry]) -> None:
        self.principal, self.t = principal, t
        self.column = ui.column().classes("w-full")
        self.cards: dict[str, PolicyCard] = {}
        self.show(entries)

    def show(self, entries: list[PolicyEntry]) -> None:
        listed = {entry.device_type for entry in entries}
        for gone in [name for name in self.cards if name not in listed]:
            self.cards.pop(gone).root.delete()
        for entry in entries:
            card = self.cards.get(entry.device_type)
            if card is None:
                with self.column:
                    self.cards[entry.device_type] = PolicyCard(self.principal, self.t, entry)
            else:
                card.show(entry)


def _show_rows(table: ui.table, rows: list[dict[str, Any]]) -> None:
    # Unchanged rows are not sent again: the page refreshes every LIVE_SECONDS.
    if rows != table.rows:
        table.rows = rows
        table.update()


def _live_columns(t: Translator) -> list[dict[str, Any]]:
    names = ("device_type", "node", "state", "temperature", "since", "pods", "reason")
    return [{"name": n, "label": t(f"thermal.column.{n}"), "field": n, "align": "left"} for n in names]


async def _live_rows(principal: Principal, t: Translator) -> list[dict[str, Any]]:
    status = await context.services().thermal.status(principal)
    rows = []
    for entry in status.types:
        for node in entry.nodes:
            pods = []
            for pod in node.pods:
                mark = (
                    t("thermal.pod.off")
                    if not pod.traffic_on
                    else (t("thermal.pod.kept") if pod.kept else "")
                )
                pods.append(f"{pod.namespace}/{pod.name}{' · ' + mark if mark else ''}")
            rows.append(
                {
                    "key": f"{entry.device_type}/{node.node}",
                    "device_type": entry.device_type,
                    "node": node.node,
                    "state": t(f"thermal.state.{node.state}")
                    + (f" · {t('thermal.cut')}" if node.hot else ""),
                    "temperature": "—"
                    if node.temperature_celsius is None
                    else f"{node.temperature_celsius:.1f} °C",
                    "since": _when(node.since),
                    "pods": ", ".join(pods) or "—",
                    "reason": _reasons(node, t),
                }
            )
    return rows


def _reasons(node: NodeStatus, t: Translator) -> str:
    """Why the node is stale and why each pod's traffic is off or kept, in the page's language."""
    said = [] if node.stale_reason is None else [_said(node.stale_reason, t)]
    said += [f"{pod.name}: {_said(pod.reason, t)}" for pod in node.pods if pod.reason is not None]
    return " · ".join(said) or "—"


def _said(message: Message, t: Translator) -> str:
    return t.message(message.code, message.params)


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


async def _history_rows(principal: Principal, t: Translator) -> list[dict[str, Any]]:
    return [
        {
            "id": row.id,
            "at": row.at.strftime("%Y-%m-%d %H:%M:%S UTC"),
            "device_type": row.device_type_id,
            "node": row.node if row.device is None else f"{row.node}/{row.device}",
            "state": t(f"thermal.state.{row.to_state}"),
            "message": _message(row, t),
        }
        for row in await context.services().thermal.events(principal, limit=HISTORY_ROWS)
    ]


def _history_table(t: Translator) -> ui.table:
    columns = [
        {"name": n, "label": t(f"thermal.column.{n}"), "field": n, "align": "left"}
        for n in ("at", "device_type", "node", "state", "message")
    ]
    table = ui.table(columns=columns, rows=[], row_key="id").classes("w-full").mark("thermal-history")
    table.props(
        f'dense flat bordered no-data-label="{t("thermal.history.empty")}" data-testid="thermal-history"'
    )
    return table


def _message(row: ThermalEvent, t: Translator) -> str:
    """The transition told in the page's language from the event's fields; the stored (English)
    message for an event without the policy it was judged by."""
    policy = row.details.get("policy") if isinstance(row.details, dict) else None
    try:
        checked = ThermalPolicy.model_validate(policy)
    except ValidationError:
        return row.message
    where = row.node if row.device is None else t("thermal.history.device", node=row.node, device=row.device)
    reading = (
        t("thermal.history.no_reading")
        if row.temperature_celsius is None
        else f"{row.temperature_celsius:g} °C"
    )
    hot = row.to_state == "hot"
    limit = checked.trip_celsius if hot else checked.resume_celsius
    told = t(
        "thermal.history.hot" if hot else "thermal.history.normal",
        where=where,
        temperature=reading,
        limit=f"{limit:g}",
        hold=checked.trip_hold_seconds if hot else checked.resume_hold_seconds,
    )
    override_of = row.details.get("override_of")
    return told + (t("thermal.history.override", deployment=override_of) if override_of else "")
