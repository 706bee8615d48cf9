"""A page the product does not have, declared by the simulated-user tests' main file only: what a new
page module looks like, and the proof that sign-in, the frame, the sidebar entry and the admin gate
come from the skeleton alone."""

from __future__ import annotations

from nicegui import ui

from nufi.ui.skeleton import NavEntry, Page, Visit

SAMPLE_PATH = "/admin/sample"


async def build(visit: Visit) -> None:
    ui.label(visit.t("charts.title")).mark("sample-title")
    ui.label(f"{visit.who.principal.username} {visit.param('say', '-')}").mark("sample-content")


SAMPLE_PAGE = Page(
    SAMPLE_PATH,
    build,
    NavEntry(lambda t: t("charts.title"), "science"),
    section="admin",
    admin_only=True,
)
