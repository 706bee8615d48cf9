"""The Labs page's "last active" in a real browser, in Korean and English: a Ready lab NuFi cannot read
says unknown, and once its server answers (a small server answering as Jupyter does, put where the lab
proxy's client reaches the lab) it says how long ago, with the exact time in its tooltip. Screenshots
under test-results/dashboard/workloads-<language>-labs-activity-*.png."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from playwright.async_api import Browser, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from e2e.workloads.workload_pages_support import PROJECT, World, open_as, shot, t
from nufi.cluster.service_route import ClusterDnsRoute
from support.loopback import serve_in_thread

# The notebook's last use, as its server tells it: this long before each answer.
USED_AGO = timedelta(minutes=3, seconds=10)


async def _jupyter(request: Request) -> Response:
    rest = request.path_params["rest"]
    if rest.endswith("api/kernels"):
        return JSONResponse([])
    if rest.endswith("api/status"):
        used = (datetime.now(UTC) - USED_AGO).isoformat().replace("+00:00", "Z")
        return JSONResponse({"last_activity": used, "kernels": 0, "connections": 0})
    return Response(status_code=404)


@pytest.fixture(scope="module")
def jupyter_double() -> Iterator[str]:
    app = Starlette(routes=[Route("/{ns}/{lab}/{rest:path}", _jupyter)])
    with serve_in_thread(app, name="jupyter-activity-double") as url:
        yield url


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_labs_show_when_each_was_last_active(
    world: World, browser: Browser, language: str, jupyter_double: str
) -> None:
    page = await open_as(browser, "user", language, f"{world.url}/labs?project={PROJECT}")
    cell = page.get_by_test_id("active-notebook")
    # The dev cluster runs no lab server: the Ready lab cannot be read, and says so (not "never").
    await expect(cell).to_have_text(t(language, "labs.active.unknown"), timeout=40_000)
    # A lab not running has nothing to read.
    await expect(page.get_by_test_id("active-editor")).to_have_text("—")
    await cell.hover()
    await expect(page.locator(".q-tooltip")).to_contain_text(t(language, "labs.active.unreachable_at"))
    await shot(page, language, "labs-activity-unknown")
    await page.mouse.move(0, 0)

    upstreams = world.services.lab_upstreams
    before = upstreams.route
    upstreams.route = ClusterDnsRoute(jupyter_double + "/{namespace}/{service}")
    try:
        # Read again once the unreachable reading has aged (NUFI_LAB_ACTIVITY_CACHE_SECONDS).
        await expect(cell).to_have_text(t(language, "labs.active.ago.m", n=3), timeout=40_000)
        await cell.hover()
        tooltip = page.locator(".q-tooltip")
        await expect(tooltip).to_contain_text(t(language, "labs.active.at"))
        # The exact time on the reader's clock, never the raw instant.
        await expect(tooltip.locator("time")).not_to_have_text("")
        await expect(tooltip).not_to_contain_text(re.compile(r"\d{4}-\d{2}-\d{2}T"))
        await shot(page, language, "labs-activity")
    finally:
        upstreams.route = before
    await page.context.close()
