"""Admin → Devices (the catalog with what the cluster holds of each type) and Admin → Audit.

Only `nufi-admin` sees these in the sidebar; anyone else opening the URL gets a page saying so, and the
services refuse them anyway (the catalog's `audit` requires the admin role itself).
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from nufi.devices.catalog import CatalogEntry
from nufi.errors import Forbidden, NufiError
from nufi.ui import context
from nufi.ui.i18n import Language, text
from nufi.ui.layout import AUDIT_PATH, DEVICES_PATH, forbidden, frame
from nufi.ui.pages.gate import visitor
from nufi.ui.pages.wizard import step_url

AUDIT_ROWS = 100


def register() -> None:
    @ui.page(DEVICES_PATH)
    async def devices_page(request: Request) -> RedirectResponse | None:
        who = await visitor(request)
        if isinstance(who, RedirectResponse):
            return who
        frame(who.principal, who.language, current=DEVICES_PATH)
        if not who.principal.is_admin:
            forbidden(who.language)
            return None
        with ui.row().classes("items-center justify-between w-full"):
            ui.label(text(who.language, "devices.title")).classes("text-2xl font-semibold")
            ui.button(
                text(who.language, "devices.add"), icon="add", on_click=lambda: ui.navigate.to(step_url(1))
            ).props("no-caps").mark("add-device")
        entries = await context.services().catalog.list_with_inventory(who.principal)
        ui.table(
            columns=_device_columns(who.language),
            rows=[_device_row(e, who.language) for e in entries],
            row_key="id",
        ).classes("w-full").props('dense flat bordered data-testid="device-types"')
        return None

    @ui.page(AUDIT_PATH)
    async def audit_page(request: Request) -> RedirectResponse | None:
        who = await visitor(request)
        if isinstance(who, RedirectResponse):
            return who
        frame(who.principal, who.language, current=AUDIT_PATH)
        try:
            page = await context.services().catalog.audit(who.principal, limit=AUDIT_ROWS)
        except Forbidden:
            forbidden(who.language)
            return None
        except NufiError as exc:
            ui.label(exc.detail).classes("text-red-700")
            return None
        ui.label(text(who.language, "audit.title")).classes("text-2xl font-semibold")
        if not page.items:
            ui.label(text(who.language, "audit.empty"))
            return None
        for record in page.items:
            when = record.at.strftime("%Y-%m-%d %H:%M:%S UTC")
            title = f"{when} · {record.actor} · {record.action} · {record.target_kind}/{record.target_id}"
            expansion = (
                ui.expansion(title).classes("w-full border-b").props('dense data-testid="audit-record"')
            )
            with expansion, ui.row().classes("w-full gap-4"):
                _json_block(record.before)
                _json_block(record.after)
        return None


def _device_columns(language: Language) -> list[dict[str, Any]]:
    names = ["name", "vendor", "resource_key", "kind", "nodes", "capacity", "enabled"]
    return [
        {"name": name, "label": text(language, f"devices.column.{name}"), "field": name, "align": "left"}
        for name in names
    ]


def _device_row(entry: CatalogEntry, language: Language) -> dict[str, Any]:
    device_type, inventory = entry.device_type, entry.inventory
    if inventory is None:
        counts = text(language, "devices.inventory_error", detail=entry.inventory_error or "")
        nodes = "—"
    else:
        counts = f"{inventory.capacity} / {inventory.allocatable} / {inventory.allocated}"
        nodes = str(inventory.nodes_with_devices)
    return {
        "id": device_type.id,
        "name": device_type.name,
        "vendor": device_type.vendor,
        "resource_key": device_type.resource_key,
        "kind": text(language, f"devices.kind.{device_type.kind}"),
        "nodes": nodes,
        "capacity": counts,
        "enabled": "✓" if device_type.enabled else "—",
    }


def _json_block(value: object) -> None:
    shown = "—" if value is None else json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    ui.code(shown, language="json").classes("flex-1 text-xs")
