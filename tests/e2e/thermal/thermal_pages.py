"""The thermal sandbox module's browser visits: Admin → Thermal with a node cut (and its dry run),
Monitoring's mark, the Deployments page's reason, and a last replica kept; in Korean and English,
photographed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.async_api import Browser, BrowserContext, Locator, Page, expect

from e2e.browser_support import LOCALES, SHOTS, chromium, shot, sign_in, speaks
from nufi.ui.i18n import Language, text

from .thermal_support import HOT_NODE, PROJECT, World

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
            await _own_condition_refused(page, language)
            await _unmapped_health(page, language)
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


# An own condition whose PromQL does not parse: said beside its fields as a type's metric would be.
REFUSED = {
    "ko": "PromQL 식 sum(을(를) 해석할 수 없습니다",
    "en": "cannot parse 'sum(': unclosed left parenthesis",
}
# A type that maps no health expression (the sandbox's NVIDIA GPU) with "unhealthy" switched on.
UNMAPPED = "nvidia-gpu"
UNMAPPED_SAYS = {
    "ko": "NVIDIA GPU에 상태 식이 매핑되어 있지 않아",
    "en": "NVIDIA GPU maps no health expression, so unhealthy devices can never be cut",
}
PYTHON_NOTATION = ("Message(", "{'", "True", "custom.expression")
# Of the three LPU nodes whose temperatures NuFi reads (the DRA node's too), half is one.
BREAKER_SAYS = {
    "ko": "서킷 브레이커가 노드 3개 중 1개까지만",
    "en": "the circuit breaker lets protection cut 1 of 3 nodes",
}


@contextmanager
def unmapped_health_on(world: World) -> Iterator[None]:
    """The type without health with "unhealthy" switched on (its policy otherwise off), while inside."""
    url = f"/api/v1/admin/thermal/policies/{UNMAPPED}"
    put = world.nufi.put(url, json={"enabled": False, "unhealthy": {"enabled": True}})
    assert put.status_code == 200 and put.json()["warnings"], put.text
    try:
        yield
    finally:
        world.nufi.put(url, json={"enabled": False})


async def _card_shot(card: Locator, name: str) -> None:
    """The card alone: a whole page of four policy cards would shrink it past reading."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    await card.scroll_into_view_if_needed()
    # The page's fixed header would be drawn over the card's top once it is scrolled to.
    header = card.page.locator(".q-header")
    await header.evaluate("element => { element.style.visibility = 'hidden' }")
    await card.screenshot(path=SHOTS / f"{name}.png", animations="disabled")
    await header.evaluate("element => { element.style.visibility = '' }")


async def _opened_fold(page: Page, device_type: str) -> Locator:
    card = page.get_by_test_id(f"thermal-policy-{device_type}")
    switch = card.get_by_test_id(f"thermal-custom-{device_type}")
    if not await switch.is_visible():
        await (
            card.get_by_test_id(f"thermal-advanced-{device_type}")
            .locator(".q-expansion-item__toggle")
            .first.click()
        )
    await expect(switch).to_be_visible()
    return card


async def _own_condition_refused(page: Page, language: str) -> None:
    """Switching on an own condition whose PromQL does not parse and saving: refused beside the
    PromQL field in the reader's words, nothing stored; the page is then opened again unsaved."""
    reader: Language = "ko" if language == "ko" else "en"
    card = await _opened_fold(page, "lpu")
    await card.get_by_test_id("thermal-custom-lpu").click()
    await card.get_by_label(text(reader, "thermal.field.custom_expression")).fill("sum(")
    await card.get_by_role("button", name=text(reader, "thermal.save")).click()
    error = card.get_by_test_id("thermal-custom-error-lpu")
    await expect(error).to_contain_text(REFUSED[language], timeout=15_000)
    said = await error.inner_text()
    assert not [mark for mark in PYTHON_NOTATION if mark in said], said
    await expect(card.get_by_test_id("thermal-error-lpu")).to_have_text("")
    await speaks(page, language, "the Thermal page, an own condition refused")
    await _card_shot(card, f"thermal-{language}-own-condition-refused")
    await page.reload()


async def _unmapped_health(page: Page, language: str) -> None:
    """The type without health whose policy switches "unhealthy" on: the card warns that it can never
    trip, with a link to the type's step 2; its dry run says why unhealthy was left out."""
    reader: Language = "ko" if language == "ko" else "en"
    card = page.get_by_test_id(f"thermal-policy-{UNMAPPED}")
    warnings = card.get_by_test_id(f"thermal-warnings-{UNMAPPED}")
    await expect(warnings).to_contain_text(UNMAPPED_SAYS[language], timeout=15_000)
    link = warnings.get_by_role("link")
    await expect(link).to_have_attribute("href", f"/admin/devices/{UNMAPPED}/edit?step=2")
    await card.get_by_role("button", name=text(reader, "thermal.dry_run")).click()
    await expect(card.get_by_test_id("thermal-dry-run-left-out")).to_contain_text(
        UNMAPPED_SAYS[language], timeout=30_000
    )
    await speaks(page, language, "the Thermal page, unhealthy on a type without health")
    await _card_shot(card, f"thermal-{language}-unhealthy-without-health")


# True once a held node's row has a pod reason at least `least` pixels wide.
ROOMY_REASON = """({held, least}) => [...document.querySelectorAll('[data-testid="thermal-live"] tr')]
    .filter((tr) => tr.textContent.includes(held))
    .flatMap((tr) => [...tr.querySelectorAll("[data-pod-reason]")])
    .some((reason) => reason.getBoundingClientRect().width >= least)"""


async def breaker_pages(base: str, held: str) -> None:
    """Both LPU nodes hot and the circuit breaker holding `held` back: Node states says so on the
    node and on its pods, and why under each pod's chip with room to read it."""
    chips = {
        "ko": ("서킷 브레이커가 차단 보류", "서킷 브레이커가 유지"),
        "en": ("held by the circuit breaker", "kept by the circuit breaker"),
    }
    async with chromium() as browser:
        for language in LOCALES:
            context, page = await _thermal_page(browser, base, language)
            live = page.get_by_test_id("thermal-live")
            row = live.locator("tr", has_text=held)
            node_chip, pod_chip = chips[language]
            await expect(row.locator('[data-state="held"]', has_text=node_chip)).to_be_visible(timeout=30_000)
            await expect(row.locator('[data-state="held"]', has_text=pod_chip).first).to_be_visible()
            # Not "kept as the last replica": the circuit breaker, not the last-replica rule, kept them.
            await expect(row).not_to_contain_text(KEPT_MARK[language])
            # Why, right under each held pod's chip, with room to read it and the Korean spacing.
            reason = row.locator("[data-pod-reason]").first
            await expect(reason).to_contain_text(BREAKER_SAYS[language])
            said = await reason.inner_text()
            assert "°C(" not in said, said
            # Measured in the page in one step, polled: the live table is rebuilt now and then, and an
            # element found before a rebuild is detached (no box) by the time it is measured.
            await page.wait_for_function(
                ROOMY_REASON, arg={"held": held, "least": 300}, timeout=30_000, polling=250
            )
            await speaks(page, language, "the Thermal page, the circuit breaker holding a node")
            await shot(page, f"thermal-{language}-breaker-held")
            await context.close()


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
