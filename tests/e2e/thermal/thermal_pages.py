"""The thermal sandbox module's browser visits: Admin → Thermal with a node cut (and its dry run),
Monitoring's mark, the Deployments page's reason, and a last replica kept; in Korean and English,
photographed."""

from __future__ import annotations

import re

from playwright.async_api import Browser, BrowserContext, Page, expect

from e2e.browser_support import LOCALES, chromium, shot, sign_in, speaks
from nufi.ui.i18n import Language, text

from .thermal_support import HOT_NODE, PROJECT

# The name the module registers the LPU under (`REGISTRATION` there).
TYPE_NAME = "LPU"
HOT_MARK = {"ko": "과열: 트래픽 차단", "en": "Hot: traffic cut"}
KEPT_MARK = {"ko": "마지막 복제본이라 유지", "en": "kept as the last replica"}
# What the Deployments page says of the pod: its traffic cut for the heat, or kept as the last replica.
DEPLOYMENT_SAYS = {
    "cut": {"ko": "온도 제어: llm-", "en": "Thermal control: llm-"},
    "kept": {"ko": "마지막 라우팅 가능한 복제본", "en": "last routable replica"},
}


async def _thermal_page(browser: Browser, base: str, language: str) -> tuple[BrowserContext, Page]:
    """Admin → Thermal in `language`, signed in as the admin."""
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.goto(base + "/admin/thermal")
    await sign_in(page, "admin")
    return context, page


async def thermal_pages(base: str) -> None:
    async with chromium() as browser:
        for language in LOCALES:
            context, page = await _thermal_page(browser, base, language)
            live = page.get_by_test_id("thermal-live")
            await expect(live).to_contain_text(HOT_NODE, timeout=30_000)
            await expect(live).to_contain_text("95.0 °C")
            # The type by its name; the node hot and its traffic cut, red chips with their words.
            await expect(live).to_contain_text(TYPE_NAME)
            await expect(live.locator('[data-state="hot"]').first).to_be_visible()
            await expect(live.locator('[data-state="cut"]').first).to_be_visible()
            await expect(page.get_by_test_id("thermal-history")).to_contain_text(HOT_NODE)
            await expect(page.get_by_test_id("thermal-policy-lpu")).to_contain_text(TYPE_NAME)
            await _local_times(page)
            await speaks(page, language, "the Thermal page, a node cut")
            await shot(page, f"thermal-{language}-cut")
            await _dry_run(page, language)
            # The monitoring tab marks the node whose traffic is cut.
            await page.goto(base + "/?type=lpu")
            table = page.get_by_test_id("devices-table")
            await expect(table).to_contain_text(HOT_MARK[language], timeout=30_000)
            await expect(table.locator('[data-state="hot"]').first).to_be_visible()
            await speaks(page, language, "Monitoring, a node cut")
            await shot(page, f"thermal-{language}-monitoring-cut")
            await _deployment_says(page, base, language, "cut")
            await context.close()
        context = await browser.new_context(locale=LOCALES["en"], viewport={"width": 1400, "height": 1000})
        page = await context.new_page()
        await page.goto(base + "/admin/thermal")
        await sign_in(page, "user")
        await expect(page.get_by_test_id("forbidden")).to_be_visible()
        await expect(page.get_by_test_id("thermal-live")).to_have_count(0)
        await context.close()


async def _local_times(page: Page) -> None:
    """The times are on the browser's clock, UTC in their tooltip."""
    since = page.get_by_test_id("thermal-live").locator("time[data-local]").first
    await expect(since).to_have_attribute("title", re.compile(r" UTC$"))
    await expect(since).not_to_contain_text("UTC")


async def _dry_run(page: Page, language: str) -> None:
    """The LPU policy tried on the last day: the trip forced a moment ago is a would-be trip, named by
    the type's name, its start on the browser's clock with UTC in the tooltip."""
    reader: Language = "ko" if language == "ko" else "en"
    card = page.get_by_test_id("thermal-policy-lpu")
    await card.get_by_role("button", name=text(reader, "thermal.dry_run")).click()
    await expect(card).to_contain_text(text(reader, "thermal.dry_run.title", device_type=TYPE_NAME))
    episodes = card.get_by_test_id("thermal-dry-run-episodes")
    await expect(episodes).to_contain_text(HOT_NODE, timeout=30_000)
    start = episodes.locator("time[data-local]").first
    await expect(start).to_have_attribute("title", re.compile(r" UTC$"))
    await expect(start).not_to_contain_text("UTC")
    await speaks(page, language, "the Thermal page's dry run")
    await card.scroll_into_view_if_needed()
    await shot(page, f"thermal-{language}-dry-run")


async def _deployment_says(page: Page, base: str, language: str, state: str) -> None:
    """The project's Deployments page says why thermal control cut (or kept) the pod, in `language`."""
    await page.goto(f"{base}/deployments?project={PROJECT}")
    table = page.get_by_test_id("deployments-table")
    await expect(table).to_contain_text(DEPLOYMENT_SAYS[state][language], timeout=30_000)
    await speaks(page, language, f"Deployments, a pod {state}")
    await shot(page, f"thermal-{language}-deployment-{state}")


async def kept_pages(base: str) -> None:
    async with chromium() as browser:
        for language in LOCALES:
            context, page = await _thermal_page(browser, base, language)
            live = page.get_by_test_id("thermal-live")
            await expect(live.locator('[data-state="kept"]').first).to_be_visible(timeout=30_000)
            await expect(live).to_contain_text(KEPT_MARK[language])
            # Its node is hot, but its traffic is kept, not cut: no red "cut" chip anywhere.
            await expect(live.locator('[data-state="hot"]').first).to_be_visible()
            await expect(live.locator('[data-state="cut"]')).to_have_count(0)
            await speaks(page, language, "the Thermal page, the last replica kept")
            await shot(page, f"thermal-{language}-kept")
            await _deployment_says(page, base, language, "kept")
            await context.close()
