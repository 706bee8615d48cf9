"""Admin → Thermal: each device type's temperature policy (edit, save, dry run over history), the live
state of every node thermal control watches, and the history of transitions.

The live table reads the controller's latest pass (in memory, no Prometheus query per page); only
admins see the page, and the services refuse anyone else anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from nicegui import ui
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import RedirectResponse

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.thermal.history import ThermalEvent
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.service import PolicyEntry
from nufi.ui import context
from nufi.ui.i18n import Language, text
from nufi.ui.layout import THERMAL_PATH, forbidden, frame
from nufi.ui.parts.gate import visitor

LIVE_SECONDS = 2.0
HISTORY_ROWS = 50


def register() -> None:
    @ui.page(THERMAL_PATH)
    async def thermal_page(request: Request) -> RedirectResponse | None:
        who = await visitor(request)
        if isinstance(who, RedirectResponse):
            return who
        frame(who.principal, who.language, current=THERMAL_PATH)
        if not who.principal.is_admin:
            forbidden(who.language)
            return None
        t = _translator(who.language)
        ui.label(t("thermal.title")).classes("text-2xl font-semibold")
        ui.label(t("thermal.intro")).classes("text-slate-600 max-w-3xl")
        try:
            entries = await context.services().thermal.policies(who.principal)
        except NufiError as exc:
            ui.label(exc.detail).classes("text-red-700")
            return None
        ui.label(t("thermal.live")).classes("text-xl font-semibold mt-4")
        live = ui.table(columns=_live_columns(t), rows=[], row_key="key").classes("w-full")
        live.props(
            'dense flat bordered data-testid="thermal-live" no-data-label="' + t("thermal.live.empty") + '"'
        )

        async def show_live() -> None:
            live.rows = await _live_rows(who.principal, t)
            live.update()

        await show_live()
        ui.timer(LIVE_SECONDS, show_live)
        ui.label(t("thermal.policies")).classes("text-xl font-semibold mt-4")
        for entry in entries:
            _policy_card(who.principal, t, entry)
        ui.label(t("thermal.history")).classes("text-xl font-semibold mt-4")
        await _history(who.principal, t)
        return None


def _translator(language: Language) -> Any:
    def t(key: str, **values: object) -> str:
        return text(language, key, **values)

    return t


def _live_columns(t: Any) -> list[dict[str, Any]]:
    names = ("device_type", "node", "state", "temperature", "since", "pods")
    return [{"name": n, "label": t(f"thermal.column.{n}"), "field": n, "align": "left"} for n in names]


async def _live_rows(principal: Principal, t: Any) -> list[dict[str, Any]]:
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
                }
            )
    return rows


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _policy_card(principal: Principal, t: Any, entry: PolicyEntry) -> None:
    policy = entry.policy
    with ui.card().classes("w-full").props(f'data-testid="thermal-policy-{entry.device_type}"'):
        source = t(f"thermal.source.{entry.source}")
        ui.label(f"{entry.device_type} · {source}").classes("text-lg font-medium")
        with ui.row().classes("items-end gap-4 flex-wrap"):
            enabled = ui.switch(t("thermal.field.enabled"), value=policy.enabled)
            trip = ui.number(t("thermal.field.trip_celsius"), value=policy.trip_celsius, suffix="°C")
            resume = ui.number(t("thermal.field.resume_celsius"), value=policy.resume_celsius, suffix="°C")
            trip_hold = ui.number(
                t("thermal.field.trip_hold_seconds"), value=policy.trip_hold_seconds, suffix="s"
            )
            resume_hold = ui.number(
                t("thermal.field.resume_hold_seconds"), value=policy.resume_hold_seconds, suffix="s"
            )
            scope = ui.select(
                {"node": t("thermal.scope.node"), "device": t("thermal.scope.device")},
                value=policy.scope,
                label=t("thermal.field.scope"),
            ).classes("min-w-[10rem]")
            shutoff = ui.checkbox(t("thermal.field.allow_full_shutoff"), value=policy.allow_full_shutoff)
            taint = ui.checkbox(t("thermal.field.taint_node"), value=policy.taint_node)
        # What one deployment's override may do (PolicyOverride.refusal).
        with ui.row().classes("items-end gap-4 flex-wrap"):
            may_disable = ui.checkbox(
                t("thermal.field.overrides_may_disable"), value=policy.overrides_may_disable
            ).props(f'data-testid="thermal-may-disable-{entry.device_type}"')
            max_trip = (
                ui.number(
                    t("thermal.field.override_max_trip_celsius"),
                    value=policy.override_max_trip_celsius,
                    suffix="°C",
                    placeholder=t("thermal.field.override_max_trip_hint"),
                )
                .classes("min-w-[16rem]")
                .props(f'stack-label data-testid="thermal-max-trip-{entry.device_type}"')
            )
        error = ui.label("").classes("text-red-700").props(f'data-testid="thermal-error-{entry.device_type}"')
        result = ui.column().classes("w-full")

        def proposed() -> ThermalPolicy | None:
            error.text = ""
            try:
                return ThermalPolicy(
                    enabled=bool(enabled.value),
                    trip_celsius=trip.value,
                    resume_celsius=resume.value,
                    trip_hold_seconds=int(trip_hold.value or 0),
                    resume_hold_seconds=int(resume_hold.value or 0),
                    scope=scope.value,
                    allow_full_shutoff=bool(shutoff.value),
                    taint_node=bool(taint.value),
                    overrides_may_disable=bool(may_disable.value),
                    override_max_trip_celsius=max_trip.value,
                )
            except (ValidationError, TypeError, ValueError) as exc:
                error.text = _first_error(exc)
                return None

        async def save() -> None:
            policy = proposed()
            if policy is None:
                return
            try:
                await context.services().thermal.put_policy(principal, entry.device_type, policy)
            except NufiError as exc:
                error.text = exc.detail
                return
            ui.notify(t("thermal.saved", device_type=entry.device_type), type="positive")

        async def dry_run() -> None:
            policy = proposed()
            if policy is None:
                return
            result.clear()
            try:
                ran = await context.services().thermal.dry_run(principal, entry.device_type, policy)
            except NufiError as exc:
                error.text = exc.detail
                return
            with result:
                ui.label(t("thermal.dry_run.title")).classes("font-medium")
                rows = [
                    {
                        "key": node.key,
                        "trips": sum(1 for tr in node.transitions if tr.to == "hot"),
                        "cut": f"{node.cut_seconds / 60:.1f}",
                        "max": "—" if node.max_temperature is None else f"{node.max_temperature:g} °C",
                    }
                    for node in ran.nodes
                ]
                columns = [
                    {"name": n, "label": t(f"thermal.dry_run.{n}"), "field": n, "align": "left"}
                    for n in ("key", "trips", "cut", "max")
                ]
                table = ui.table(columns=columns, rows=rows, row_key="key").classes("w-full")
                table.props(
                    f'dense flat no-data-label="{t("thermal.dry_run.empty")}" data-testid="thermal-dry-run"'
                )

        with ui.row().classes("gap-2"):
            ui.button(t("thermal.save"), icon="save", on_click=save).props("no-caps").mark("thermal-save")
            ui.button(t("thermal.dry_run"), icon="history", on_click=dry_run).props("no-caps outline")


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return str(exc)


async def _history(principal: Principal, t: Any) -> None:
    rows = [
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
    columns = [
        {"name": n, "label": t(f"thermal.column.{n}"), "field": n, "align": "left"}
        for n in ("at", "device_type", "node", "state", "message")
    ]
    table = ui.table(columns=columns, rows=rows, row_key="id").classes("w-full")
    table.props(
        f'dense flat bordered no-data-label="{t("thermal.history.empty")}" data-testid="thermal-history"'
    )


def _message(row: ThermalEvent, t: Callable[..., str]) -> str:
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
