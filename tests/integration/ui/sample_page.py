"""A page the product does not have, declared by the simulated-user tests' main file only: what a new
page module looks like, and the proof that sign-in, the frame, the sidebar entry and the admin gate
come from the skeleton alone."""

from __future__ import annotations

import asyncio

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


SLOW_PATH = "/admin/slow"


async def build_slow(visit: Visit) -> None:
    """A page whose build waits, with `?hold=1`, for a dependency that never answers (an event nobody
    sets), after drawing a first element; without it, it is built at once."""
    ui.label("drawn before the wait").mark("slow-first")
    if visit.param("hold"):
        await asyncio.Event().wait()
    ui.label("drawn after the wait").mark("slow-done")


SLOW_PAGE = Page(SLOW_PATH, build_slow, section="admin", admin_only=True)
