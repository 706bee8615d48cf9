"""Every page of the dashboard: its path, its builder, its entry in the sidebar and whether only
`nufi-admin` may open it. `nufi.ui.app.register_pages` declares these (`nufi.ui.skeleton`), and the
sidebar lists them in this order within their sections."""

from __future__ import annotations

from nufi.ui.pages import alerts, audit, deployments, devices, labs, monitoring, projects, thermal
from nufi.ui.skeleton import NavEntry, Page
from nufi.ui.wizard import page as wizard
from nufi.ui.wizard.form import EDIT_PATH, WIZARD_PATH

PAGES: tuple[Page, ...] = (
    Page(monitoring.PATH, monitoring.build, NavEntry(lambda t: t("nav.monitoring"), "monitor_heart")),
    Page(alerts.PATH, alerts.build, NavEntry(lambda t: t("nav.alerts"), "notifications_active")),
    Page(
        deployments.PATH,
        deployments.build,
        NavEntry(lambda t: t("nav.deployments"), "rocket_launch"),
        section="workloads",
    ),
    Page(labs.PATH, labs.build, NavEntry(lambda t: t("nav.labs"), "science"), section="workloads"),
    Page(
        devices.PATH,
        devices.build,
        NavEntry(lambda t: t("nav.devices"), "developer_board"),
        section="admin",
        admin_only=True,
    ),
    Page(
        projects.PATH,
        projects.build,
        NavEntry(lambda t: t("nav.projects"), "folder_shared"),
        section="admin",
        admin_only=True,
    ),
    Page(
        thermal.PATH,
        thermal.build,
        NavEntry(lambda t: t("nav.thermal"), "device_thermostat"),
        section="admin",
        admin_only=True,
    ),
    Page(
        audit.PATH,
        audit.build,
        NavEntry(lambda t: t("nav.audit"), "history"),
        section="admin",
        admin_only=True,
    ),
    # The wizard's steps sit under Devices, which the sidebar marks while they are open.
    Page(WIZARD_PATH, wizard.build_new, section="admin", admin_only=True),
    Page(EDIT_PATH, wizard.build_edit, section="admin", admin_only=True),
)
