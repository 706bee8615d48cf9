"""The frame of every dashboard page: a header with the person's name, the language switch and
sign-out, and a sidebar with Monitoring, Workloads → Deployments and Labs, and, for `nufi-admin` only,
Admin → Devices, Projects, Thermal and Audit."""

from __future__ import annotations

from urllib.parse import quote

from nicegui import ui

from nufi.auth import Principal
from nufi.ui.i18n import LANGUAGE_NAMES, LANGUAGES, Language, text

MONITORING_PATH = "/"
DEVICES_PATH = "/admin/devices"
AUDIT_PATH = "/admin/audit"
DEPLOYMENTS_PATH = "/deployments"
LABS_PATH = "/labs"
PROJECTS_PATH = "/admin/projects"
THERMAL_PATH = "/admin/thermal"


def language_url(language: Language, back_to: str) -> str:
    return f"/ui/language?set={language}&next={quote(back_to, safe='')}"


def frame(principal: Principal, language: Language, *, current: str) -> None:
    """Header and sidebar for a page at path `current`."""
    ui.page_title(text(language, "app.title"))
    with ui.header().classes("items-center justify-between bg-slate-800 text-white px-4"):
        with ui.row().classes("items-center gap-2"):
            ui.icon("memory").classes("text-2xl")
            ui.label(text(language, "app.title")).classes("text-lg font-semibold")
        with ui.row().classes("items-center gap-4"):
            with ui.row().classes("items-center gap-1").props('aria-label="language"'):
                for option in LANGUAGES:
                    link = ui.link(LANGUAGE_NAMES[option], language_url(option, current))
                    link.classes("text-white no-underline px-1")
                    if option == language:
                        link.classes("font-bold underline")
            ui.label(principal.username).classes("font-medium").props('data-testid="user-name"')
            with ui.element("form").props('method="post" action="/auth/logout"'):
                ui.button(text(language, "header.sign_out")).props('type="submit" flat no-caps color="white"')
    with ui.left_drawer(value=True).classes("bg-slate-100 w-56").props("width=220 bordered"):
        _nav(language, "nav.monitoring", MONITORING_PATH, "monitor_heart", current)
        ui.label(text(language, "nav.workloads")).classes("text-xs uppercase text-slate-500 mt-6 mb-1 px-2")
        _nav(language, "nav.deployments", DEPLOYMENTS_PATH, "rocket_launch", current)
        _nav(language, "nav.labs", LABS_PATH, "science", current)
        if principal.is_admin:
            ui.label(text(language, "nav.admin")).classes("text-xs uppercase text-slate-500 mt-6 mb-1 px-2")
            _nav(language, "nav.devices", DEVICES_PATH, "developer_board", current)
            _nav(language, "nav.projects", PROJECTS_PATH, "folder_shared", current)
            _nav(language, "nav.thermal", THERMAL_PATH, "device_thermostat", current)
            _nav(language, "nav.audit", AUDIT_PATH, "history", current)


def _nav(language: Language, key: str, path: str, icon: str, current: str) -> None:
    active = current == path or (path != MONITORING_PATH and current.startswith(path))
    with (
        ui.link(target=path).classes("no-underline text-slate-800 w-full"),
        ui.row().classes("items-center gap-2 rounded px-2 py-1 w-full" + (" bg-slate-300" if active else "")),
    ):
        ui.icon(icon)
        ui.label(text(language, key))


def forbidden(language: Language) -> None:
    """What a non-admin sees on an admin page (the services refuse them anyway)."""
    with ui.column().classes("items-start gap-3 p-8 max-w-xl"):
        ui.icon("block").classes("text-5xl text-red-700")
        ui.label(text(language, "forbidden.title")).classes("text-2xl font-semibold").props(
            'data-testid="forbidden"'
        )
        ui.label(text(language, "forbidden.body"))
        ui.link(text(language, "forbidden.back"), MONITORING_PATH)
