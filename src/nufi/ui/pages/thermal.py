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

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.models.units import celsius
from nufi.thermal.effective import PolicyEntry
from nufi.thermal.history.records import ThermalEvent
from nufi.thermal.protection.status import NodeStatus, PodTraffic
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.moments import moment_cell_slot, utc_text
from nufi.ui.parts.thermal_chips import chip, chip_words, chips_slot, condition_name, state_chips
from nufi.ui.parts.thermal_policy import PolicyCard
from nufi.ui.parts.workload_forms import type_names
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
    names = await type_names(who.principal)
    ui.label(t("thermal.live")).classes("text-xl font-semibold mt-4")
    live = _live_table(t)
    ui.label(t("thermal.policies")).classes("text-xl font-semibold mt-4")
    policies = _Policies(who.principal, t, entries, names)
    ui.label(t("thermal.history")).classes("text-xl font-semibold mt-4")
    history = _history_table(t)

    async def refresh() -> None:
        # One pass for the whole page: the controller's state, the stored policies (saved here or by
        # another admin) and the transitions recorded since. A type added since is shown by its id
        # until the page is opened again.
        services = context.services().thermal
        _show_rows(live, await _live_rows(who.principal, t, names))
        policies.show(await services.policies(who.principal))
        _show_rows(history, await _history_rows(who.principal, t, names))

    await refresh()
    ui.timer(LIVE_SECONDS, refresh)


class _Policies:
    """The policy cards, one per device type in the catalog's order, kept as the catalog changes."""

    def __init__(
        self, principal: Principal, t: Translator, entries: list[PolicyEntry], names: dict[str, str]
    ) -> None:
        self.principal, self.t, self.names = principal, t, names
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
                    self.cards[entry.device_type] = PolicyCard(
                        self.principal, self.t, entry, self.names.get(entry.device_type, entry.device_type)
                    )
            else:
                card.show(entry)


def _show_rows(table: ui.table, rows: list[dict[str, Any]]) -> None:
    # Unchanged rows are not sent again: the page refreshes every LIVE_SECONDS.
    if rows != table.rows:
        table.rows = rows
        table.update()


# Short values a line break would only garble (a node name split at its hyphen, a date from its time,
# a Korean header or type name broken between its letters).
_NO_WRAP = {"device_type", "node", "state", "temperature", "since", "at"}


# Each pod's chip with why its traffic is off or kept right under it: a sentence (the circuit
# breaker's runs to three lines) gets the pods' width rather than a column squeezed at the edge.
_PODS_SLOT = (
    '<q-td key="pods" :props="props">'
    '<div v-for="(c, i) in props.row.pod_chips" :key="i" class="q-mb-xs" style="max-width: 36rem">'
    '<q-chip dense square :color="c.color" text-color="white" :label="c.label" :data-state="c.kind" '
    'class="q-ma-none" />'
    '<div v-if="c.reason" class="text-caption" data-pod-reason style="white-space: normal">'
    "{{ c.reason }}</div></div>"
    '<span v-if="!props.row.pod_chips.length" class="text-grey-6">—</span></q-td>'
)


def _kept_whole(column: dict[str, Any]) -> dict[str, Any]:
    if column["name"] in _NO_WRAP:
        return column | {"classes": "text-no-wrap", "headerClasses": "text-no-wrap"}
    if column["name"] == "reason":
        # Mostly "—" now that each pod's reason is under its chip: its header not broken per letter.
        return column | {"headerClasses": "text-no-wrap"}
    return column


def _live_table(t: Translator) -> ui.table:
    names = ("device_type", "node", "state", "temperature", "since", "pods", "reason")
    columns = [
        _kept_whole({"name": n, "label": t(f"thermal.column.{n}"), "field": n, "align": "left"})
        for n in names
    ]
    table = ui.table(columns=columns, rows=[], row_key="key")
    table.classes("w-full").mark("thermal-live")
    table.props('dense flat bordered wrap-cells data-testid="thermal-live"')
    table.props(f'no-data-label="{t("thermal.live.empty")}"')
    table.add_slot("body-cell-state", chips_slot("state_chips"))
    table.add_slot("body-cell-pods", _PODS_SLOT)
    table.add_slot("body-cell-since", moment_cell_slot("since"))
    return table


async def _live_rows(principal: Principal, t: Translator, names: dict[str, str]) -> list[dict[str, Any]]:
    status = await context.services().thermal.status(principal)
    rows = []
    for entry in status.types:
        for node in entry.nodes:
            states = state_chips(t, node.state, node.hot, [pod.traffic_on for pod in node.pods])
            if node.unhealthy:
                devices = ", ".join(node.unhealthy_devices)
                states.insert(1, chip("unhealthy", t("thermal.state.unhealthy"), devices))
            if node.custom:
                devices = ", ".join(node.custom_devices)
                states.insert(1, chip("tripped", t("thermal.state.tripped"), devices))
            if node.held:
                states.append(chip("held", t("thermal.held")))
            pods = [_pod_chip(pod, t) for pod in node.pods]
            rows.append(
                {
                    "key": f"{entry.device_type}/{node.node}",
                    "device_type": names.get(entry.device_type, entry.device_type),
                    "node": node.node,
                    "state": chip_words(states),
                    "state_chips": states,
                    "temperature": celsius(node.temperature_celsius) or "—",
                    "since": datetime.fromtimestamp(node.since, UTC).isoformat(),
                    "since_utc": utc_text(datetime.fromtimestamp(node.since, UTC)),
                    "pods": chip_words(pods) or "—",
                    "pod_chips": pods,
                    "reason": _reasons(node, t),
                }
            )
    return rows


# The reasons a hot pod keeps its traffic because the circuit breaker held it, not as a last replica.
_BREAKER_REASONS = frozenset({"thermal.reason.breaker_nodes", "thermal.reason.breaker_replicas"})


def _pod_chip(pod: PodTraffic, t: Translator) -> dict[str, str]:
    """The pod's chip, and why its traffic is off or kept (shown under it) in the page's language."""
    where = f"{pod.namespace}/{pod.name}"
    reason = "" if pod.reason is None else _said(pod.reason, t)
    if not pod.traffic_on:
        found = chip("cut", f"{where} · {t('thermal.pod.off')}")
    elif pod.kept and pod.reason is not None and pod.reason.code in _BREAKER_REASONS:
        found = chip("held", f"{where} · {t('thermal.pod.held')}")
    elif pod.kept:
        found = chip("kept", f"{where} · {t('thermal.pod.kept')}")
    else:
        found = chip("on", where)
    return found | {"reason": reason}


def _reasons(node: NodeStatus, t: Translator) -> str:
    """Why the node is stale, in the page's language (each pod's reason is under its chip)."""
    return "—" if node.stale_reason is None else _said(node.stale_reason, t)


def _said(message: Message, t: Translator) -> str:
    return t.message(message.code, message.params)


async def _history_rows(principal: Principal, t: Translator, names: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for row in await context.services().thermal.events(principal, limit=HISTORY_ROWS):
        states = [chip(row.to_state, t(f"thermal.state.{row.to_state}"))]
        rows.append(
            {
                "id": row.id,
                "at": row.at.astimezone(UTC).isoformat(),
                "at_utc": utc_text(row.at),
                "device_type": names.get(row.device_type_id, row.device_type_id),
                "node": row.node if row.device is None else f"{row.node}/{row.device}",
                "state": chip_words(states),
                "state_chips": states,
                "message": _message(row, t),
            }
        )
    return rows


def _history_table(t: Translator) -> ui.table:
    columns = [
        _kept_whole({"name": n, "label": t(f"thermal.column.{n}"), "field": n, "align": "left"})
        for n in ("at", "device_type", "node", "state", "message")
    ]
    table = ui.table(columns=columns, rows=[], row_key="id").classes("w-full").mark("thermal-history")
    table.props(
        f'dense flat bordered wrap-cells no-data-label="{t("thermal.history.empty")}" '
        'data-testid="thermal-history"'
    )
    table.add_slot("body-cell-at", moment_cell_slot("at"))
    table.add_slot("body-cell-state", chips_slot("state_chips"))
    return table


def _message(row: ThermalEvent, t: Translator) -> str:
    """The transition told in the page's language from the event's fields; the stored (English)
    message for an event without the policy it was judged by."""
    checked = row.policy
    if checked is None:
        return row.message
    where = row.node if row.device is None else t("thermal.history.device", node=row.node, device=row.device)
    if row.condition == "custom":
        tripped, own = row.to_state == "tripped", checked.custom
        key = "thermal.history.tripped" if tripped else "thermal.history.untripped"
        bound = f"{own.trip_at if tripped else own.resume_at:g}"
        held_for = own.trip_hold_seconds if tripped else own.resume_hold_seconds
        return t(key, where=where, name=condition_name(t, own), limit=bound, hold=held_for)
    if row.condition == "unhealthy":
        unhealthy = row.to_state == "unhealthy"
        condition = checked.unhealthy
        hold = condition.trip_hold_seconds if unhealthy else condition.resume_hold_seconds
        key = "thermal.history.unhealthy" if unhealthy else "thermal.history.healthy"
        return t(key, where=where, hold=hold)
    reading = (
        t("thermal.history.no_reading")
        if row.temperature_celsius is None
        else f"{row.temperature_celsius:.1f} °C"
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
