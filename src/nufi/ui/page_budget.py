"""How long a dashboard page may take to build, and what a page that takes longer answers.

NiceGUI answers 500 ("Response for ... not ready") when a page's builder has not finished within its
`response_timeout`: under load, or while a service a page reads is slow, that turned slowness into
errors. Every page is built under NuFi's own budget (NUFI_DASHBOARD_PAGE_BUILD_TIMEOUT_SECONDS)
instead, and NiceGUI's limit is set above the largest budget, so it is never the one reached. A build
that runs out is abandoned: what it drew is removed, and the page says it is taking longer than usual,
as a 503 with Retry-After, so a person (or a proxy) retries rather than reports an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from nicegui import ui
from starlette.requests import Request
from starlette.responses import Response

from nufi.config import Settings
from nufi.logging import get_logger
from nufi.ui import context
from nufi.ui.i18n import Translator

# Above the largest budget Settings allows (60 s): NiceGUI's own limit is never the one a page meets.
NICEGUI_RESPONSE_TIMEOUT_SECONDS = 65.0
RETRY_AFTER_SECONDS = 5
_DEFAULT_BUDGET_SECONDS: float = Settings.model_fields["dashboard_page_build_timeout_seconds"].default
_log = get_logger("nufi.ui.page_budget")

T = TypeVar("T")


class BuildTooSlow(Exception):
    """The page's builder did not finish within the budget."""


def budget_seconds() -> float:
    """This process's budget: the attached services' settings, or the default before they are attached."""
    if context.is_attached():
        return context.services().settings.dashboard_page_build_timeout_seconds
    return _DEFAULT_BUDGET_SECONDS


async def within_budget(build: Awaitable[T], seconds: float) -> T:
    """`build`'s result; BuildTooSlow when it takes longer than `seconds` (it is then cancelled). A
    TimeoutError the build itself raises is passed on as it is, not taken for the budget's."""
    bound = asyncio.timeout(seconds)
    try:
        async with bound:
            return await build
    except TimeoutError:
        if bound.expired():
            raise BuildTooSlow from None
        raise


def too_slow(request: Request, t: Translator, kept: list[ui.element], again: str) -> Response:
    """The page, with everything its build drew beyond `kept` removed, saying to retry (a link to
    `again`, the page's own path and query): a 503."""
    client = ui.context.client
    for element in list(client.content.default_slot.children):
        if element not in kept:
            element.delete()
    _log.warning("page build took too long", path=request.url.path, budget_seconds=budget_seconds())
    with client.content, ui.column().classes("items-start gap-3 p-8 max-w-xl").mark("page-too-slow"):
        ui.icon("hourglass_top").classes("text-5xl text-amber-700")
        ui.label(t("slow.title")).classes("text-2xl font-semibold")
        ui.label(t("slow.body", seconds=RETRY_AFTER_SECONDS))
        ui.link(t("slow.retry"), again).mark("page-too-slow-retry")
    response = client.build_response(request, 503)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
