"""The dashboard as the simulated-user tests run it: NuFi's pages over services built from settings,
with the signed-in person named by the test in a request header (sign-in has its own tests), and the
pages the product does not have (`sample_page`), declared beside the product's."""

from __future__ import annotations

import os
from contextlib import AsyncExitStack
from pathlib import Path

from nicegui import app, ui
from pydantic import SecretStr
from starlette.requests import Request

from integration.ui.people import PEOPLE, USER_HEADER
from integration.ui.sample_page import SAMPLE_PAGE, SAMPLES_PAGE, SLOW_PAGE
from nufi.auth import Principal
from nufi.config import Settings
from nufi.services import build_services
from nufi.ui import context
from nufi.ui.app import language_router, register_pages
from nufi.ui.registry import PAGES

_stack = AsyncExitStack()


async def _who(request: Request) -> Principal | None:
    return PEOPLE.get(request.headers.get(USER_HEADER, ""))


async def _start() -> None:
    settings = Settings(
        # A database file a test chose (the wizard's restart test); a fresh one in memory otherwise.
        database_url=SecretStr(os.environ.get("NUFI_TEST_DATABASE_URL") or "sqlite+aiosqlite:///:memory:"),
        prometheus_url=os.environ.get("NUFI_TEST_PROMETHEUS_URL") or None,
        # A dev cluster a test started (the wizard's tests); none otherwise.
        kubeconfig=Path(kubeconfig) if (kubeconfig := os.environ.get("NUFI_TEST_KUBECONFIG")) else None,
        # A page-build budget a test chose (the slow page's tests); the default otherwise.
        dashboard_page_build_timeout_seconds=float(
            os.environ.get("NUFI_TEST_PAGE_BUILD_TIMEOUT_SECONDS")
            or Settings.model_fields["dashboard_page_build_timeout_seconds"].default
        ),
    )
    services = await _stack.enter_async_context(build_services(settings))
    context.attach(services, _who)


async def _stop() -> None:
    context.attach(None)
    await _stack.aclose()


register_pages((*PAGES, SAMPLE_PAGE, SLOW_PAGE, SAMPLES_PAGE))
app.include_router(language_router)
app.on_startup(_start)
app.on_shutdown(_stop)
ui.run(show_welcome_message=False)
