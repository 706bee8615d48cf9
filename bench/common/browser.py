"""Debian's Chromium, headless and driven by Playwright, and the identity provider's login form."""

from __future__ import annotations

from playwright.async_api import Browser, BrowserContext, Page, Playwright, expect

CHROMIUM = "/usr/bin/chromium"


async def launch_chromium(playwright: Playwright) -> Browser:
    # Root in a container: Chromium's own sandbox needs user namespaces it may not have.
    return await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])


async def new_context(browser: Browser) -> BrowserContext:
    return await browser.new_context(locale="en-US", viewport={"width": 1400, "height": 900})


async def submit_login(page: Page, username: str, password: str, *, timeout_ms: float) -> None:
    """Fill in and send the identity provider's login form, once the page shows it."""
    await expect(page.locator("#kc-form-login")).to_be_visible(timeout=timeout_ms)
    await page.fill("#username", username)
    await page.fill("#password", password)
    await page.click("#kc-login")
