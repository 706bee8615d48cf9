"""Admin → Devices: the catalog with what the cluster holds of each type, and each row's actions
(`nufi.ui.parts.device_actions`); Add Device opens the wizard (`nufi.ui.wizard`). Below, the alerts of
one type: its thresholds and generated rules (`nufi.ui.parts.alert_section`)."""

from __future__ import annotations

from urllib.parse import urlencode

from nicegui import ui

from nufi.ui.parts.alert_section import PARAM, AlertSection
from nufi.ui.parts.device_actions import DeviceList
from nufi.ui.skeleton import Visit
from nufi.ui.wizard.form import step_url

PATH = "/admin/devices"


def alerts_url(device_type_id: str) -> str:
    """This page with the Alerts section showing `device_type_id`."""
    return f"{PATH}?{urlencode({PARAM: device_type_id})}"


async def build(visit: Visit) -> None:
    t = visit.t
    with ui.row().classes("items-center justify-between w-full"):
        ui.label(t("devices.title")).classes("text-2xl font-semibold")
        ui.button(t("devices.add"), icon="add", on_click=lambda: ui.navigate.to(step_url(1))).props(
            "no-caps"
        ).mark("add-device")
    await DeviceList(visit.who.principal, t).refresh()
    await AlertSection(
        visit.who.principal,
        t,
        visit.param(PARAM) or None,
        lambda chosen: visit.frame.returns_to(alerts_url(chosen)),
    ).draw()
