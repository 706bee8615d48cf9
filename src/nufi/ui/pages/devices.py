"""Admin → Devices: the catalog with what the cluster holds of each type, and each row's actions
(`nufi.ui.parts.device_actions`); Add Device opens the wizard (`nufi.ui.wizard`)."""

from __future__ import annotations

from nicegui import ui

from nufi.ui.parts.device_actions import DeviceList
from nufi.ui.skeleton import Visit
from nufi.ui.wizard.form import step_url

PATH = "/admin/devices"


async def build(visit: Visit) -> None:
    t = visit.t
    with ui.row().classes("items-center justify-between w-full"):
        ui.label(t("devices.title")).classes("text-2xl font-semibold")
        ui.button(t("devices.add"), icon="add", on_click=lambda: ui.navigate.to(step_url(1))).props(
            "no-caps"
        ).mark("add-device")
    await DeviceList(visit.who.principal, t).refresh()
