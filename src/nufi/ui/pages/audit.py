"""Admin → Audit: each record of the catalog's changes, with the fields it changed.

Only `nufi-admin` sees it in the sidebar; anyone else opening the URL gets a page saying so, and the
catalog's `audit` requires the admin role itself.
"""

from __future__ import annotations

import json

from nicegui import ui

from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.moments import moment
from nufi.ui.skeleton import Visit

PATH = "/admin/audit"
# What the catalog, thermal control and the alerts record (`nufi.devices.catalog`,
# `nufi.thermal.service`, `nufi.alerts.service`).
AUDITED_ACTIONS = (
    "device_type.create",
    "device_type.update",
    "device_type.delete",
    "device_type.reset",
    "thermal_policy.update",
    "alert_thresholds.update",
)
AUDIT_ROWS = 100
# How much of a changed value the audit page's summary shows; the JSON blocks below hold all of it.
CHANGE_CHARS = 80


async def build(visit: Visit) -> None:
    t = visit.t
    catalog = context.services().catalog
    try:
        page = await catalog.audit(visit.who.principal, limit=AUDIT_ROWS)
        names = {device.id: device.name for device in await catalog.list(visit.who.principal)}
    except NufiError as exc:
        ui.label(exc.text(t.language)).classes("text-red-700")
        return
    ui.label(t("audit.title")).classes("text-2xl font-semibold")
    if not page.items:
        ui.label(t("audit.empty"))
        return
    for record in page.items:
        # What changed is readable without opening the record (the revision always changes).
        changed = [
            line for line in changed_fields(record.before, record.after) if not line.startswith("revision:")
        ]
        caption = "; ".join(changed)[:160] if record.before is not None and record.after is not None else ""
        expansion = ui.expansion()
        expansion.classes("w-full border-b").props('dense data-testid="audit-record"')
        with expansion.add_slot("header"), ui.column().classes("gap-0 py-1"):
            with ui.row().classes("items-center gap-2"):
                moment(record.at).classes("text-slate-600")
                ui.label(record.actor).classes("font-medium")
                ui.label(_action(t, record.action)).classes("rounded bg-slate-200 px-2 text-sm")
                # The type's name where a person reads it; its id for one that no longer exists.
                ui.label(names.get(record.target_id, record.target_id)).mark("audit-target")
            if caption:
                ui.label(caption).classes("text-xs text-slate-500")
        with expansion:
            _changes(t, record.before, record.after)
            with ui.row().classes("w-full gap-4"):
                _json_block(record.before)
                _json_block(record.after)


def _action(t: Translator, action: str) -> str:
    return t(f"audit.action.{action}") if action in AUDITED_ACTIONS else action


def changed_fields(before: object, after: object) -> list[str]:
    """The top-level keys whose value differs between `before` and `after`, each as
    `key: old → new` (values as compact JSON, long ones cut), sorted by key."""
    old = before if isinstance(before, dict) else {}
    new = after if isinstance(after, dict) else {}
    missing = object()
    lines = []
    for key in sorted(set(old) | set(new)):
        was, now = old.get(key, missing), new.get(key, missing)
        if was != now:
            lines.append(f"{key}: {_short(was, missing)} → {_short(now, missing)}")
    return lines


def _short(value: object, missing: object) -> str:
    if value is missing:
        return "—"
    shown = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
    return shown if len(shown) <= CHANGE_CHARS else shown[: CHANGE_CHARS - 1] + "…"


def _changes(t: Translator, before: object, after: object) -> None:
    """Above the two JSON blocks: what changed, in a line per top-level field."""
    with ui.column().classes("gap-0 text-sm py-1").mark("audit-changes"):
        if before is None or after is None:
            said = t("devices.audit.created") if before is None else t("devices.audit.removed")
            ui.label(said).classes("text-slate-600")
            return
        lines = changed_fields(before, after)
        if not lines:
            ui.label(t("devices.audit.unchanged")).classes("text-slate-600")
            return
        ui.label(t("devices.audit.changed")).classes("font-medium")
        for line in lines:
            ui.label(line).classes("font-mono text-xs").mark("audit-change")


def _json_block(value: object) -> None:
    shown = "—" if value is None else json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    ui.code(shown, language="json").classes("flex-1 text-xs")
