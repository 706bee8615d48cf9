"""The dashboard in a real browser (Debian's Chromium, driven by Playwright) against a running sandbox:
signing in through the identity provider with a deep link, what an admin and a user each see, and a
screenshot of every step in Korean and in English under test-results/dashboard/."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

from .e2e_sandbox_support import SandboxRun

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "dashboard"
LOCALES = {"ko": "ko-KR", "en": "en-US"}
TEXTS = {
    "ko": {
        "devices": "디바이스",
        "monitoring": "모니터링",
        "forbidden": "접근 권한이 없습니다",
        "sign_out": "로그아웃",
    },
    "en": {
        "devices": "Devices",
        "monitoring": "Monitoring",
        "forbidden": "You do not have access",
        "sign_out": "Sign out",
    },
}


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        # Root in a container: Chromium's own sandbox needs user namespaces it may not have.
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        try:
            yield launched
        finally:
            await launched.close()


async def shot(page: Page, language: str, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SHOTS / f"{language}-{name}.png", full_page=True)


async def sign_in(page: Page, username: str) -> None:
    """On the identity provider's login page: fill it in and come back."""
    await expect(page.locator("#kc-form-login")).to_be_visible()
    await page.fill("#username", username)
    await page.fill("#password", username)
    await page.click("#kc-login")


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_an_admin_signs_in_through_a_deep_link_and_sees_the_admin_pages(
    sandbox: SandboxRun, browser: Browser, language: str
) -> None:
    texts = TEXTS[language]
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    url = sandbox.state["nufi_url"]
    await page.goto(f"{url}/admin/devices")
    await shot(page, language, "01-sign-in")
    await sign_in(page, "admin")
    # The deep link survived the round trip through the identity provider.
    await expect(page).to_have_url(f"{url}/admin/devices")
    await expect(page.get_by_text("NVIDIA GPU")).to_be_visible()
    await expect(page.get_by_text("nvidia.com/gpu")).to_be_visible()
    await expect(page.get_by_test_id("user-name")).to_have_text("admin")
    await shot(page, language, "02-admin-devices")

    await page.get_by_role("link", name=texts["monitoring"]).first.click()
    await expect(page).to_have_url(f"{url}/")
    await page.get_by_test_id("tab-nvidia-gpu").click()
    await expect(page.get_by_test_id("devices-table")).to_contain_text("gpu-node-1")
    await expect(page.get_by_test_id("card-devices")).to_contain_text("8")
    await expect(page.get_by_test_id("chart")).to_be_visible()
    await shot(page, language, "03-monitoring")

    await page.goto(f"{url}/admin/audit")
    await shot(page, language, "04-admin-audit")

    # A reload keeps the session: it lives on the server, the browser holds only the cookie.
    cookies = {c["name"]: c for c in await context.cookies()}
    assert cookies["nufi_session"]["httpOnly"] and cookies["nufi_session"]["sameSite"] == "Lax"
    await page.reload()
    await expect(page.get_by_test_id("user-name")).to_have_text("admin")

    await page.get_by_role("button", name=texts["sign_out"]).click()
    await expect(page).not_to_have_url(re.compile(re.escape(url) + "/admin"))
    await shot(page, language, "05-signed-out")
    await page.goto(f"{url}/")
    await expect(page.locator("#kc-form-login")).to_be_visible()  # signed out: back to the sign-in
    await context.close()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_user_has_no_admin_menu_and_admin_urls_are_refused(
    sandbox: SandboxRun, browser: Browser, language: str
) -> None:
    texts = TEXTS[language]
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    url = sandbox.state["nufi_url"]
    await page.goto(f"{url}/")
    await sign_in(page, "user")
    await expect(page.get_by_test_id("user-name")).to_have_text("user")
    await expect(page.get_by_role("link", name=texts["monitoring"]).first).to_be_visible()
    await expect(page.get_by_role("link", name=texts["devices"])).to_have_count(0)
    await shot(page, language, "06-user-monitoring")
    await page.goto(f"{url}/admin/devices")
    await expect(page.get_by_test_id("forbidden")).to_have_text(texts["forbidden"])
    await shot(page, language, "07-user-forbidden")
    await context.close()
