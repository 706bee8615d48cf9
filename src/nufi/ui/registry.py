"""Every page of the dashboard: its path, its builder, its entry in the sidebar and whether only
`nufi-admin` may open it. `nufi.ui.app.register_pages` declares these (`nufi.ui.skeleton`), and the
sidebar lists them in this order within their sections; the Admin section holds the admin-only pages."""

from __future__ import annotations

from typing import Protocol

from nufi.ui.i18n import Translator
from nufi.ui.pages import alerts, audit, deployments, devices, labs, monitoring, projects, thermal
from nufi.ui.skeleton import Builder, NavEntry, Page, Section
from nufi.ui.wizard import page as wizard
from nufi.ui.wizard.form import EDIT_PATH, WIZARD_PATH


class _PageModule(Protocol):
    @property
    def PATH(self) -> str: ...
    @property
    def build(self) -> Builder: ...


def _listed(module: _PageModule, label: str, icon: str, section: Section) -> Page:
    """The page of `module`, with its sidebar entry: the text `label` and the Material icon `icon`."""

    def said(t: Translator) -> str:
        return t(label)

    return Page(module.PATH, module.build, NavEntry(said, icon), section, admin_only=section == "admin")


PAGES: tuple[Page, ...] = (
    _listed(monitoring, "nav.monitoring", "monitor_heart", "main"),
    _listed(alerts, "nav.alerts", "notifications_active", "main"),
    _listed(deployments, "nav.deployments", "rocket_launch", "workloads"),
    _listed(labs, "nav.labs", "science", "workloads"),
    _listed(devices, "nav.devices", "developer_board", "admin"),
    _listed(projects, "nav.projects", "folder_shared", "admin"),
    _listed(thermal, "nav.thermal", "device_thermostat", "admin"),
    _listed(audit, "nav.audit", "history", "admin"),
    # The wizard's steps sit under Devices, which the sidebar marks while they are open.
    Page(WIZARD_PATH, wizard.build_new, section="admin", admin_only=True),
    Page(EDIT_PATH, wizard.build_edit, section="admin", admin_only=True),
)
