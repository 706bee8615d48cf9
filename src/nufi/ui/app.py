"""Mounting the dashboard on NuFi's FastAPI app.

NiceGUI keeps one app, and one set of pages, per process: `mount_dashboard` may run once per process
(`nufi serve`), and the pages find the process's services through `nufi.ui.context`, attached by the
server's lifespan. The language switch is a plain route that remembers the choice in a cookie, so it
holds across replicas and restarts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI
from nicegui import core, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from nufi.auth.web_login import safe_next
from nufi.auth.web_origin import origin_of, own_origin
from nufi.ui import context, open_pages, signin, socket_admission
from nufi.ui.i18n import LANGUAGES
from nufi.ui.language_choice import LANGUAGE_COOKIE
from nufi.ui.registry import PAGES
from nufi.ui.skeleton import Page, declare

# A year: the language is a preference, not a secret.
_LANGUAGE_COOKIE_SECONDS = 366 * 86400

language_router = APIRouter(include_in_schema=False)


@language_router.get("/ui/language")
async def choose_language(request: Request, set: str = "", next: str = "/") -> RedirectResponse:
    response = RedirectResponse(safe_next(next), status_code=303)
    if set in LANGUAGES:
        response.set_cookie(
            LANGUAGE_COOKIE, set, max_age=_LANGUAGE_COOKIE_SECONDS, httponly=True, samesite="lax", path="/"
        )
    return response


def register_pages(pages: Sequence[Page] = PAGES) -> None:
    """Declare the dashboard's pages (`nufi.ui.registry`) with NiceGUI's process-wide page registry."""
    declare(pages)


@asynccontextmanager
async def _attached(app: FastAPI) -> AsyncIterator[None]:
    # Entered after the app's own lifespan has built the services (FastAPI nests routers' inside).
    context.attach(app.state.services)
    try:
        yield
    finally:
        context.attach(None)


def mount_dashboard(app: FastAPI) -> None:
    """Serve the dashboard at `/` of `app` (a `nufi.api.create_app` app), beside the API."""
    register_pages()
    app.include_router(APIRouter(lifespan=_attached))
    # Before NiceGUI's mount at `/`, which catches every path not routed ahead of it.
    app.include_router(signin.router)
    app.include_router(language_router)
    # No storage_secret: NuFi keeps nothing in NiceGUI's per-browser storage, and without it NiceGUI
    # sets no cookie of its own, so `nufi_session` is the browser's only credential.
    ui.run_with(
        app,
        title="NuFi",
        favicon="🧮",
        show_welcome_message=False,
        reconnect_timeout=10.0,
    )
    # The dashboard's socket carries the session cookie too: only NuFi's own pages may open it.
    core.sio.eio.cors_allowed_origins = socket_origin_allowed
    open_pages.install()
    socket_admission.install()
    metrics = getattr(app.state, "http_metrics", None)
    if metrics is not None:
        metrics.registry.register(open_pages.PagesCollector())


def socket_origin_allowed(origin: str | None, environ: dict[str, Any]) -> bool:
    """For python-engineio (asked for every polling request and WebSocket handshake that carries an
    Origin): whether `origin` is NuFi's own (see `nufi.auth.web_origin`)."""
    if origin is None:
        return True
    scope = environ.get("asgi.scope") or {}
    scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
    public_url = context.services().settings.dashboard_public_url if context.is_attached() else None
    own = own_origin(public_url, scheme=scheme, host_header=environ.get("HTTP_HOST"))
    return own is not None and origin_of(origin) == own
