"""The skeleton every dashboard page stands on.

A page is a `Page`: its path, its builder, its entry in the sidebar (if any) and its section, and
whether only `nufi-admin` may open it. `declare(pages)` registers each with NiceGUI behind one door,
written once here: the visitor signed in (or the redirect to sign-in that brings them back), the
frame (header and sidebar, whose entries come from these same pages), and, on an admin-only page
opened by anyone else, the page saying it is not for them (the services refuse them anyway), and a
page that takes longer than its budget to build saying to retry (`page_budget`). The builder then
draws only its content, from a `Visit`.

The product's pages are listed in `nufi.ui.registry`; adding a page is one module with its builder
and one entry there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from nicegui import ui
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from nufi.ui import open_pages
from nufi.ui.i18n import Translator
from nufi.ui.layout import Frame, NavEntry, Section, forbidden, frame
from nufi.ui.page_budget import (
    NICEGUI_RESPONSE_TIMEOUT_SECONDS,
    BuildTooSlow,
    budget_seconds,
    too_slow,
    within_budget,
)
from nufi.ui.parts.gate import Visitor, visitor

# A page module needs only this module: the sidebar's own types are named here too.
__all__ = ["Builder", "NavEntry", "Page", "Section", "Visit", "declare", "declared"]


@dataclass(frozen=True)
class Visit:
    """What a page's builder gets: who opened it, their texts, what the URL says, and the frame
    already drawn around it."""

    who: Visitor
    t: Translator
    request: Request
    frame: Frame

    def param(self, name: str, default: str = "") -> str:
        """The path parameter `name` (`{name}` in the page's path), else the query parameter."""
        value = self.request.path_params.get(name)
        if value is None:
            value = self.request.query_params.get(name)
        return default if value is None else str(value)


# A builder draws the page's content; it may answer with a response instead (a redirect).
Builder = Callable[[Visit], Awaitable[Response | None]]


@dataclass(frozen=True)
class Page:
    path: str
    build: Builder
    nav: NavEntry | None = None
    section: Section = "main"
    admin_only: bool = False


_declared: list[Page] = []


def declared() -> tuple[Page, ...]:
    """The pages declared in this process, in their order: what the sidebar lists."""
    return tuple(_declared)


def declare(pages: Sequence[Page]) -> None:
    """Register `pages` with NiceGUI's process-wide page registry, each behind the door; they
    replace those declared before (NiceGUI's simulated-user tests run the declaration again)."""
    _declared[:] = pages
    for page in pages:
        _register(page)


def _register(page: Page) -> None:
    async def door(request: Request) -> Response | None:
        who = await visitor(request)
        if isinstance(who, RedirectResponse):
            return who
        t = Translator(who.language)
        drawn = frame(who.principal, t, declared(), current=who.path)
        if page.admin_only and not who.principal.is_admin:
            forbidden(t)
            return None
        kept = list(ui.context.client.content.default_slot.children)
        try:
            answer = await within_budget(page.build(Visit(who, t, request, drawn)), budget_seconds())
        except BuildTooSlow:
            return too_slow(request, t, kept, who.path)
        if answer is not None:
            open_pages.discard(ui.context.client)  # answered with a redirect: nothing to keep
        return answer

    ui.page(page.path, response_timeout=NICEGUI_RESPONSE_TIMEOUT_SECONDS)(door)
