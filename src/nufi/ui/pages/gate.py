"""The door of every page: signed in, or off to sign in and back to the same URL; and, while a page
stays open, the session checked again, so an ended or unrefreshable session sends the person to sign
in rather than leaving a page that only fails."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from nicegui import ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from nufi.auth import Principal
from nufi.ui import context
from nufi.ui.i18n import Language


@dataclass(frozen=True)
class Visitor:
    principal: Principal
    language: Language
    path: str


# How often an open page asks whether its session still holds (and has its tokens refreshed).
SESSION_CHECK_SECONDS = 30.0


def sign_in_path(path: str) -> str:
    return f"/auth/login?next={quote(path, safe='')}"


async def visitor(request: Request) -> Visitor | RedirectResponse:
    """Who opens the page, or the redirect to sign-in that brings them back to it (deep links survive)."""
    path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    signed = await context.principal(request)
    if signed is None:
        return RedirectResponse(sign_in_path(path), status_code=303)
    return Visitor(signed, context.language_of(request), path)


def keep_signed_in(request: Request, who: Visitor) -> None:
    """Re-check the page's session every SESSION_CHECK_SECONDS; when it has ended, off to sign in
    and back to this page."""

    async def check() -> None:
        if await context.principal(request) is None:
            ui.navigate.to(sign_in_path(who.path))

    ui.timer(SESSION_CHECK_SECONDS, check)
