"""The door of every page: signed in, or off to sign in and back to the same URL."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

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


async def visitor(request: Request) -> Visitor | RedirectResponse:
    """Who opens the page, or the redirect to sign-in that brings them back to it (deep links survive)."""
    path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    signed = await context.principal(request)
    if signed is None:
        return RedirectResponse(f"/auth/login?next={quote(path, safe='')}", status_code=303)
    return Visitor(signed, context.language_of(request), path)
