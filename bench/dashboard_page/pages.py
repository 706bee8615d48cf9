"""1. Time to content: the monitoring page opened in fresh pages of a signed-in browser context,
beside the API calls behind it."""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass

import httpx
from playwright.async_api import BrowserContext, Locator, Page, expect

from bench.common.browser import submit_login
from bench.common.gpu_world import DEVICES_PER_NODE, NODES
from bench.common.printing import line, ms

TYPE_ID = "nvidia-gpu"
USERNAME = "user"
API_RUNS = 7
API_PAGE_NODES = 25
# Content a page must show: rows of the devices table, and the devices card's count.
FIRST_ROWS = re.compile(r"gpu-\d{4}")
DEVICES = str(NODES * DEVICES_PER_NODE)
CONTENT_TIMEOUT_MS = 120_000
GOAL_SECONDS = 1.0


async def content_shown(page: Page) -> None:
    """The devices table holds its first rows and the devices card counts every device."""
    await expect(page.get_by_test_id("devices-table")).to_contain_text(FIRST_ROWS, timeout=CONTENT_TIMEOUT_MS)
    await expect(page.get_by_test_id("card-devices")).to_contain_text(DEVICES, timeout=CONTENT_TIMEOUT_MS)


def chart_or_error(page: Page) -> Locator:
    return page.get_by_test_id("chart").or_(page.get_by_test_id("chart-error"))


async def sign_in(context: BrowserContext, url: str) -> None:
    page = await context.new_page()
    try:
        await page.goto(f"{url}/?type={TYPE_ID}")
        await submit_login(page, USERNAME, USERNAME, timeout_ms=CONTENT_TIMEOUT_MS)
        await expect(page.get_by_test_id("tab-nvidia-gpu")).to_be_visible(timeout=CONTENT_TIMEOUT_MS)
        await content_shown(page)
        await expect(chart_or_error(page)).to_be_visible(timeout=CONTENT_TIMEOUT_MS)
        tabs = page.locator('[data-testid^="tab-"]')
        ids = [await tabs.nth(i).get_attribute("data-testid") for i in range(await tabs.count())]
        print(f"signed in as {USERNAME!r}; tabs shown: {', '.join(str(i) for i in ids)}", flush=True)
    finally:
        await page.close()


@dataclass
class Opened:
    page: Page
    # Seconds from `page.goto`: to its return (the HTML and its load event), to the table and cards,
    # and to the chart (built last, after the history query).
    loaded: float
    shown: float
    charted: float
    # The HTML the server answered, in bytes.
    html: int
    # Whether the chart showed an error instead of lines.
    chart_failed: bool = False


async def open_monitoring(context: BrowserContext, url: str) -> Opened:
    """A fresh page at the NVIDIA tab, left open once its chart is there too."""
    page = await context.new_page()
    started = time.perf_counter()
    response = await page.goto(f"{url}/?type={TYPE_ID}")
    loaded = time.perf_counter() - started
    await content_shown(page)
    shown = time.perf_counter() - started
    # Drawn, or its error shown (a history query Prometheus gave up on): either way the page is built.
    await expect(chart_or_error(page)).to_be_visible(timeout=CONTENT_TIMEOUT_MS)
    charted = time.perf_counter() - started
    chart_failed = await page.get_by_test_id("chart-error").count() > 0
    html = len(await response.body()) if response is not None else 0
    return Opened(page, loaded, shown, charted, html, chart_failed)


async def api_calls(client: httpx.AsyncClient, path: str, params: dict[str, str]) -> tuple[list[float], int]:
    """`API_RUNS` timed GETs of `path` (after one that opens the connection); the body's size."""
    times: list[float] = []
    size = 0
    for run in range(API_RUNS + 1):
        started = time.perf_counter()
        response = await client.get(path, params=params)
        took = time.perf_counter() - started
        response.raise_for_status()
        size = len(response.content)
        if run:
            times.append(took)
    return times, size


async def time_to_content(context: BrowserContext, url: str, runs: int, token: str) -> None:
    opened: list[Opened] = []
    for _ in range(runs):
        # Closed once its chart is there: a page closed sooner leaves its build running for nobody.
        opened.append(await open_monitoring(context, url))
        await opened[-1].page.close()
    loads = [o.loaded for o in opened]
    contents = [o.shown for o in opened]
    charts = [o.charted for o in opened]
    async with httpx.AsyncClient(
        base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60.0
    ) as client:
        api, api_size = await api_calls(
            client, f"/api/v1/monitoring/{TYPE_ID}", {"limit": str(API_PAGE_NODES)}
        )
        chart, chart_size = await api_calls(
            client, f"/api/v1/monitoring/{TYPE_ID}/range", {"metric": "utilization", "by": "node"}
        )
    median = statistics.median(contents)
    print(f"\n1. time to content of /?type={TYPE_ID} in a fresh page of the signed-in context ({runs} runs)")
    line(
        "goto to table rows and devices card = 8000: median / max",
        f"{ms(median)} / {ms(max(contents)).strip()}",
    )
    line(
        f"  goal <= {GOAL_SECONDS:g} s",
        "met" if median <= GOAL_SECONDS else f"not met ({median / GOAL_SECONDS:.1f}x the goal)",
    )
    line(
        "of which page.goto (HTML and load event): median / max",
        f"{ms(statistics.median(loads))} / {ms(max(loads)).strip()}",
    )
    line(
        "for reference: goto to the chart visible (or its error): median / max",
        f"{ms(statistics.median(charts))} / {ms(max(charts)).strip()}"
        + (
            f"  ({failed} of {runs} charts showed an error)"
            if (failed := sum(o.chart_failed for o in opened))
            else ""
        ),
    )
    line("every run", ", ".join(f"{s * 1000:.0f}" for s in contents) + " ms")
    line(
        f"for reference: GET /api/v1/monitoring/{TYPE_ID}?limit={API_PAGE_NODES}: median / max",
        f"{ms(statistics.median(api))} / {ms(max(api)).strip()}  ({API_RUNS} calls, keep-alive, "
        f"{api_size / 1024:.0f} KiB)",
    )
    line(
        "for reference: the page's chart data, GET .../range?metric=utilization&by=node (1 h)",
        f"{ms(statistics.median(chart))} / {ms(max(chart)).strip()}  ({chart_size / 1024:.0f} KiB)",
    )
    line("for reference: the page's HTML as the server sent it", f"{opened[-1].html / 1024:8.0f} KiB")
