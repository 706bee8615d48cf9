"""What the browser tests share: Debian's Chromium launched headless through Playwright, the locales
they run in, where screenshots go, and the identity provider's sign-in form."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

from playwright.async_api import Browser, Page, async_playwright, expect

from support.languages import korean_in, wrong_language

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "dashboard"
LOCALES = {"ko": "ko-KR", "en": "en-US"}
# For the Playwright calls that take no timeout of their own (evaluate, new_page, close, count): a
# renderer that stops answering would otherwise hold them, and the test, for ever.
UNTIMED_CALL_BOUND_SECONDS = 30.0

T = TypeVar("T")


async def bounded(call: Awaitable[T], what: str) -> T:
    try:
        async with asyncio.timeout(UNTIMED_CALL_BOUND_SECONDS):
            return await call
    except TimeoutError:
        raise AssertionError(
            f"{what}: no answer from the browser in {UNTIMED_CALL_BOUND_SECONDS:g} s"
        ) from None


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        # Root in a container: Chromium's own sandbox needs user namespaces it may not have.
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        try:
            yield launched
        finally:
            await launched.close()


async def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    """`SHOTS/<name>.png`, scrolled to the top (or the fixed header lands mid-page in a full-page
    capture), animations finished at once (a dialog is captured as it stands, not half faded in)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    await bounded(page.evaluate("window.scrollTo(0, 0)"), f"scrolling {page.url} to the top")
    await page.screenshot(path=SHOTS / f"{name}.png", full_page=full_page, animations="disabled")


async def sidebar_reaches_the_bottom(page: Page) -> bool:
    """Whether a full-page capture shows the sidebar's colour at the page's bottom-left as at its top
    (one pixel each, as PNG: the same colour is the same bytes), and the content beside it is not."""
    height = await bounded(page.evaluate("document.documentElement.scrollHeight"), "the page's height")

    async def pixel(x: int, y: int) -> bytes:
        clip = {"x": x, "y": y, "width": 1, "height": 1}
        return await page.screenshot(full_page=True, clip=clip, animations="disabled")  # type: ignore[arg-type]

    top, bottom, content = await pixel(200, 80), await pixel(200, height - 2), await pixel(226, height - 2)
    assert top != content, "the sidebar and the content have the same colour"
    return top == bottom


async def sign_in(page: Page, username: str) -> None:
    """On the identity provider's login page: fill it in and come back."""
    await expect(page.locator("#kc-form-login")).to_be_visible()
    await page.fill("#username", username)
    await page.fill("#password", username)
    await page.click("#kc-login")


# Visible text nodes, but those inside code, typed-in values and other verbatim technical text.
_READER_TEXT = """() => {
  const skip = 'code, pre, script, style, textarea, input, select, [data-verbatim], .q-field__native';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const lines = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skip) || !node.textContent.trim()) continue;
    // Hidden from the reader: NiceGUI's own reconnect popups stay in the page, invisible, until needed.
    if (parent.closest('[aria-hidden="true"]') || getComputedStyle(parent).visibility === 'hidden') continue;
    if (!parent.getClientRects().length) continue;
    lines.push(node.textContent.trim());
  }
  return lines.join('\\n');
}"""


async def reader_text(page: Page) -> str:
    """What a person reads on the page: its visible text, without the verbatim technical fragments
    (code, typed-in values) that stay as they are in every language."""
    text: str = await bounded(page.evaluate(_READER_TEXT), f"reading the text of {page.url}")
    return text


async def speaks(page: Page, language: str, where: str) -> None:
    """Fail with the offending lines when the page shows a sentence not in `language`."""
    text = await reader_text(page)
    # Read at all: a page whose text could not be read would pass any language.
    assert korean_in(text) if language == "ko" else text.strip(), f"{where} ({language}): no text read"
    wrong = wrong_language(text, language)
    assert wrong == [], f"{where} ({language}) shows text in another language: {wrong}"
