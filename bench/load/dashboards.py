"""Dashboard sessions: each a Chromium browser context of its own, signed in through the real OIDC
login form, holding the live monitoring page and counting the websocket frames it receives."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass

from playwright.async_api import Browser, Page, WebSocket, async_playwright, expect

from bench.common.browser import launch_chromium, new_context, submit_login
from bench.load.tally import Tally
from bench.load.world import TYPE_ID

PAGE_TIMEOUT_MS = 120_000
# Sign-ins at a time: each is a browser context, a login form, NuFi's code exchange with the identity
# provider (under NUFI_OIDC_TIMEOUT_SECONDS, 3 s) and a first page. Sessions are opened before the
# clock starts; many at once on a small, busy machine time out the exchange on CPU alone.
SIGN_INS_AT_ONCE = 2
ROWS = re.compile(r"lpu\d")
SIGN_IN_ROUTE = "dashboard: OIDC sign-in to the live monitoring page"
LIVE_ROUTE = "dashboard: page still live at the end"


@dataclass
class Session:
    """One signed-in browser context holding the live monitoring page; counts its websocket frames."""

    number: int
    page: Page | None = None
    frames: int = 0

    def watch(self, socket: WebSocket) -> None:
        socket.on("framereceived", self.frame)

    def frame(self, _payload: bytes | str) -> None:
        self.frames += 1


async def open_sessions(
    stack: contextlib.AsyncExitStack, count: int, url: str, devices: int, tally: Tally
) -> tuple[list[Session], float]:
    """`count` sessions signed in, a few at a time, in one browser closed with `stack`; the seconds
    the sign-ins took."""
    sessions = [Session(number) for number in range(count)]
    if not sessions:
        return sessions, 0.0
    playwright = await stack.enter_async_context(async_playwright())
    browser = await launch_chromium(playwright)
    stack.push_async_callback(browser.close)
    gate = asyncio.Semaphore(SIGN_INS_AT_ONCE)
    began = time.perf_counter()
    await asyncio.gather(*(sign_in(browser, url, s, devices, gate, tally) for s in sessions))
    seconds = time.perf_counter() - began
    print(
        f"{sum(s.page is not None for s in sessions)} of {len(sessions)} dashboard sessions "
        f"signed in, in {seconds:.1f} s",
        flush=True,
    )
    return sessions, seconds


async def sign_in(
    browser: Browser, url: str, session: Session, devices: int, gate: asyncio.Semaphore, tally: Tally
) -> None:
    async with gate:
        context = await new_context(browser)
        page = await context.new_page()
        page.on("websocket", session.watch)
        started = time.perf_counter()
        try:
            await page.goto(f"{url}/?type={TYPE_ID}")
            await submit_login(page, "user", "user", timeout_ms=PAGE_TIMEOUT_MS)
            await expect(page.get_by_test_id(f"tab-{TYPE_ID}")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
            await expect(page.get_by_test_id("devices-table")).to_contain_text(ROWS, timeout=PAGE_TIMEOUT_MS)
            await expect(page.get_by_test_id("card-devices")).to_contain_text(
                str(devices), timeout=PAGE_TIMEOUT_MS
            )
        except Exception as exc:  # Playwright's errors and failed expectations alike
            tally.error(
                SIGN_IN_ROUTE, None, time.perf_counter() - started, f"session {session.number}: {exc}"
            )
            await context.close()
            return
        tally.ok(SIGN_IN_ROUTE, 200, time.perf_counter() - started)
        session.page = page


async def still_live(session: Session, frames_before: int, tally: Tally) -> None:
    if session.page is None:
        return
    started = time.perf_counter()
    try:
        await expect(session.page.get_by_test_id("devices-table")).to_contain_text(ROWS, timeout=15_000)
    except Exception as exc:  # Playwright's errors and failed expectations alike
        tally.error(LIVE_ROUTE, None, time.perf_counter() - started, f"session {session.number}: {exc}")
        return
    received = session.frames - frames_before
    tally.dashboard_frames.append(received)
    if received == 0:
        tally.error(LIVE_ROUTE, None, time.perf_counter() - started, f"session {session.number}: no update")
        return
    tally.ok(LIVE_ROUTE, 200, time.perf_counter() - started)
