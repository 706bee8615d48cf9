"""The door of every page: signed in, or off to sign in and back to the same URL; and, while a page
stays open, its session checked again on every action and every SESSION_CHECK_SECONDS, so a page
whose session ended (or lost a role) is closed on the server and its browser sent to sign in, rather
than left acting for someone no longer there (see `nufi.ui.open_pages`)."""

from __future__ import annotations

from dataclasses import dataclass

from nicegui import ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from nufi.auth import Principal
from nufi.ui import context, open_pages
from nufi.ui.i18n import Language
from nufi.ui.language_choice import language_of
from nufi.ui.signin import sign_in_url


@dataclass(frozen=True)
class Visitor:
    principal: Principal
    language: Language
    path: str


async def visitor(request: Request) -> Visitor | RedirectResponse:
    """Who opens the page, or the redirect to sign-in that brings them back to it (deep links survive)."""
    path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    signed = await context.principal(request)
    if signed is None:
        open_pages.discard(ui.context.client)
        return RedirectResponse(sign_in_url(path), status_code=303)
    open_pages.opened(ui.context.client, request, signed, path)
    return Visitor(signed, language_of(request), path)
