"""Admin → Audit: each record of what people and NuFi changed, with the fields it changed in words.

Only `nufi-admin` sees it in the sidebar; anyone else opening the URL gets a page saying so, and the
catalog's `audit` requires the admin role itself.
"""

from __future__ import annotations

import json

from nicegui import ui

from nufi.devices.audit import ACTIONS, AuditRecord
from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.audit_lines import change_line
from nufi.ui.parts.moments import moment
from nufi.ui.skeleton import Visit

PATH = "/admin/audit"
AUDIT_ROWS = 100


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
        _record(t, record, names)


def _record(t: Translator, record: AuditRecord, names: dict[str, str]) -> None:
    """A row that reads as sentences: who did what to which thing, and for a change each field that
    changed; what a creation or removal held, and the stored JSON, wait in the row's fold."""
    lines = [change_line(t, change, names) for change in record.changes()]
    changed = record.before is not None and record.after is not None
    expansion = ui.expansion()
    expansion.classes("w-full border-b").props('dense data-testid="audit-record"')
    with expansion.add_slot("header"), ui.column().classes("gap-0 py-1 flex-1 min-w-0"):
        with ui.row().classes("items-center gap-2"):
            moment(record.at).classes("text-slate-600")
            ui.label(record.actor).classes("font-medium")
            ui.label(_action(t, record.action)).classes("rounded bg-slate-200 px-2 text-sm")
            # The type's name where a person reads it; its id for one that no longer exists.
            ui.label(names.get(record.target_id, record.target_id)).mark("audit-target")
        if changed:
            for line in lines:
                ui.label(line).classes("text-sm text-slate-700 break-words").mark("audit-change")
    with expansion:
        if not changed:
            _held(t, record, lines)
        with ui.expansion(t("audit.raw")).classes("w-full").props("dense"), ui.row().classes("w-full gap-4"):
            _json_block(record.before)
            _json_block(record.after)


def _action(t: Translator, action: str) -> str:
    # An action of an older NuFi that no longer writes it is shown as stored.
    return t(f"audit.action.{action}") if action in ACTIONS else action


def _held(t: Translator, record: AuditRecord, lines: list[str]) -> None:
    """What a creation made or a removal took away, a line per field."""
    with ui.column().classes("gap-0 text-sm py-1").mark("audit-changes"):
        said = t("audit.created") if record.before is None else t("audit.removed")
        ui.label(said).classes("text-slate-600")
        for line in lines:
            ui.label(line).classes("text-sm break-words").mark("audit-held")


def _json_block(value: object) -> None:
    shown = "—" if value is None else json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    ui.code(shown, language="json").classes("flex-1 min-w-0 text-xs")
