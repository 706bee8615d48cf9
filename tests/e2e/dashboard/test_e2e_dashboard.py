"""The dashboard in a real browser (Debian's Chromium, driven by Playwright) against a running sandbox:
signing in through the identity provider with a deep link, what an admin and a user each see, and a
screenshot of every step in Korean and in English under test-results/dashboard/."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect

from e2e.browser_support import LOCALES, bounded, sidebar_reaches_the_bottom, sign_in, speaks
from e2e.browser_support import shot as browser_shot
from e2e.e2e_sandbox_support import SandboxRun
from nufi.messages import render
from nufi.ui.i18n import Language, text
from support.lpu_type import LPU_METRICS, LPU_RESOURCE_KEY

# Where the admin's browser is: times are shown on its clock.
TIME_ZONES = {"ko": "Asia/Seoul", "en": "Europe/Berlin"}
TEXTS = {
    "ko": {
        "devices": "디바이스",
        "monitoring": "모니터링",
        "forbidden": "접근 권한이 없습니다",
        "sign_out": "로그아웃",
        "sign_in": "super-llm에 로그인",
        "sign_in_refused": "사용자 이름 또는 비밀번호가 올바르지 않습니다.",
    },
    "en": {
        "devices": "Devices",
        "monitoring": "Monitoring",
        "forbidden": "You do not have access",
        "sign_out": "Sign out",
        "sign_in": "Sign in to super-llm",
        "sign_in_refused": "Invalid username or password.",
    },
}


async def shot(page: Page, language: str, name: str) -> None:
    await browser_shot(page, f"{language}-{name}")


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_an_admin_signs_in_through_a_deep_link_and_sees_the_admin_pages(
    sandbox: SandboxRun, browser: Browser, language: str
) -> None:
    texts = TEXTS[language]
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    url = sandbox.state["nufi_url"]
    await page.goto(f"{url}/admin/devices")
    # The identity provider's sign-in page speaks the browser's language, a wrong password too.
    await expect(page.locator("#kc-page-title")).to_have_text(texts["sign_in"])
    await speaks(page, language, "the sign-in page")
    await shot(page, language, "01-sign-in")
    await page.fill("#username", "admin")
    await page.fill("#password", "not-the-password")
    await page.click("#kc-login")
    await expect(page.locator("#input-error")).to_have_text(texts["sign_in_refused"])
    await speaks(page, language, "the sign-in page after a wrong password")
    await shot(page, language, "01-sign-in-refused")
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
    await drawn_chart(page)
    await shot(page, language, "03-monitoring")

    await page.goto(f"{url}/admin/audit")
    await shot(page, language, "04-admin-audit")
    # A page longer than the window: the sidebar's colour goes down to its end.
    await page.goto(f"{url}/admin/thermal")
    await expect(page.get_by_test_id("thermal-history")).to_be_visible()
    assert await bounded(page.evaluate("document.documentElement.scrollHeight"), "height") > 1200
    await shot(page, language, "04-admin-thermal-long")
    assert await sidebar_reaches_the_bottom(page)

    # A reload keeps the session: it lives on the server, the browser holds only the cookie.
    cookies = {c["name"]: c for c in await context.cookies()}
    assert cookies["nufi_session"]["httpOnly"] and cookies["nufi_session"]["sameSite"] == "Lax"
    # The only credential: NiceGUI's own `session` cookie (for a storage NuFi does not use) is not set.
    assert "session" not in cookies, cookies
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
    # Monitoring is everyone's: the user sees the types and their devices, not only the frame.
    await expect(page.get_by_test_id("tab-nvidia-gpu")).to_be_visible()
    await expect(page.get_by_test_id("devices-table")).to_contain_text("node-1")
    await shot(page, language, "06-user-monitoring")
    await page.goto(f"{url}/admin/devices")
    await expect(page.get_by_test_id("forbidden")).to_have_text(texts["forbidden"])
    await shot(page, language, "07-user-forbidden")
    await context.close()


async def signed_in_admin(browser: Browser, language: str, url: str) -> tuple[BrowserContext, Page]:
    context = await bounded(
        browser.new_context(
            locale=LOCALES[language],
            timezone_id=TIME_ZONES[language],
            viewport={"width": 1400, "height": 900},
        ),
        "a new context",
    )
    page = await bounded(context.new_page(), "a new page")
    await page.goto(f"{url}/admin/devices")
    await sign_in(page, "admin")
    await expect(page).to_have_url(f"{url}/admin/devices")
    return context, page


async def fill_the_wizard(page: Page, language: Language, type_id: str, shots: str) -> None:
    """The seed's three steps as a person takes them, up to the review."""
    await page.get_by_role("button", name=text(language, "devices.add")).click()
    await page.get_by_label(text(language, "wizard.field.name")).fill("HyperAccel LPU")
    await page.get_by_label(text(language, "wizard.field.vendor")).fill("HyperAccel")
    await page.get_by_label(text(language, "wizard.field.id")).fill(type_id)
    await page.get_by_label(text(language, "wizard.field.resource_key")).fill(LPU_RESOURCE_KEY)
    # Checked live against the cluster as it is typed: both LPU nodes with their capacity.
    await expect(page.get_by_text(text(language, "wizard.key.found"))).to_be_visible(timeout=15_000)
    await expect(page.get_by_text("lpu-node-1")).to_be_visible()
    await expect(page.get_by_text("lpu-node-2")).to_be_visible()
    await shot(page, language, f"{shots}-1-identity")
    await page.get_by_role("button", name=text(language, "wizard.next")).click()

    for key, value in (("node", "node"), ("device", "device"), ("pod", "pod"), ("namespace", "namespace")):
        await page.get_by_label(text(language, f"wizard.label.{key}")).fill(value)
    await page.get_by_label(text(language, "wizard.metric.utilization")).fill(LPU_METRICS["utilization"])
    await page.get_by_label(text(language, "wizard.memory.used")).fill(LPU_METRICS["memory"]["used"])
    await page.get_by_label(text(language, "wizard.memory.total")).fill(LPU_METRICS["memory"]["total"])
    await page.get_by_label(text(language, "wizard.metric.temperature")).fill(LPU_METRICS["temperature"])
    tests = page.get_by_role("button", name=text(language, "wizard.test"), exact=True)
    for index in range(await bounded(tests.count(), "counting the Test buttons")):
        await tests.nth(index).click()
    # Utilization, memory used and total, and temperature each work (the LPU reports no power). Each
    # test asks Prometheus several queries: four at once can take more than 15 s on a loaded machine.
    await expect(page.get_by_text(text(language, "wizard.test.ok"))).to_have_count(4, timeout=60_000)
    await shot(page, language, f"{shots}-2-metrics")
    await page.get_by_role("button", name=text(language, "wizard.next")).click()
    await expect(page.get_by_text(text(language, "wizard.review.title"))).to_be_visible()
    await expect(page.get_by_text(LPU_METRICS["memory"]["total"])).to_be_visible()
    await shot(page, language, f"{shots}-3-review")


async def test_the_seed_an_admin_registers_the_lpu_in_the_wizard_and_monitoring_shows_it(
    sandbox: SandboxRun, browser: Browser
) -> None:
    url = sandbox.state["nufi_url"]
    # In English up to the review, then started over; in Korean through to the save.
    context, page = await signed_in_admin(browser, "en", url)
    await fill_the_wizard(page, "en", "lpu-preview", "08-wizard")
    started = parse_qs(urlsplit(page.url).query)["draft"][0]
    await page.get_by_role("button", name=text("en", "wizard.restart")).click()
    # Started over: step 1 of a new, empty draft. Waited for before the context closes, too: Chromium
    # can acknowledge a close that races a navigation's commit and then never close.
    fresh_draft = re.compile(r"/admin/devices/new\?step=1&draft=(?!" + re.escape(started) + r")[\w-]")
    await expect(page).to_have_url(fresh_draft)
    await expect(page.get_by_label(text("en", "wizard.field.name"))).to_have_value("")
    await bounded(context.close(), "closing the English context")

    context, page = await signed_in_admin(browser, "ko", url)
    await fill_the_wizard(page, "ko", "lpu", "08-wizard")
    await page.get_by_role("button", name=text("ko", "wizard.save")).click()
    await expect(page).to_have_url(f"{url}/admin/devices")
    row = page.get_by_role("row").filter(has_text=LPU_RESOURCE_KEY)
    await expect(row).to_contain_text(text("ko", "devices.kind.custom"))
    await expect(row).to_contain_text("8 / 8 / 0")
    await shot(page, "ko", "09-lpu-registered")

    # The row's own actions, clicked in the browser: disable takes the LPU out of monitoring, enable
    # brings it back; both are in the audit log.
    toggle = row.get_by_role("switch", name=text("ko", "devices.action.toggle"))
    await toggle.click()
    await expect(page.get_by_text(text("ko", "devices.done.disabled", name="HyperAccel LPU"))).to_be_visible()
    await page.goto(f"{url}/")
    await expect(page.get_by_test_id("tab-nvidia-gpu")).to_be_visible()
    await expect(page.get_by_test_id("tab-lpu")).to_have_count(0)
    await page.goto(f"{url}/admin/devices")
    await row.get_by_role("switch", name=text("ko", "devices.action.toggle")).click()
    await expect(page.get_by_text(text("ko", "devices.done.enabled", name="HyperAccel LPU"))).to_be_visible()
    await page.goto(f"{url}/admin/audit")
    # Newest first: the enable, the disable, then the creation, each by admin, the type by its name.
    records = page.get_by_test_id("audit-record").filter(has_text="HyperAccel LPU")
    await expect(records).to_have_count(3)
    await expect(records.filter(has_text=text("ko", "audit.action.device_type.update"))).to_have_count(2)
    await expect(records.filter(has_text=text("ko", "audit.action.device_type.create"))).to_have_count(1)
    await shot(page, "ko", "09-audit")
    # Each time on the browser's clock (Seoul, UTC+9 all year), UTC in its tooltip.
    when = records.first.locator("time")
    instant = datetime.fromisoformat(str(await when.get_attribute("datetime")))
    await expect(when).to_contain_text((instant + timedelta(hours=9)).strftime("%H:%M:%S"))
    await expect(when).to_have_attribute("title", instant.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"))

    # Every user sees it in monitoring at once: a tab with the three nodes' 12 devices (the DRA node's
    # exporter reports its LPUs too) and a chart.
    for language in ("ko", "en"):
        await page.goto(f"{url}/ui/language?set={language}&next=%2F%3Ftype%3Dlpu")
        await expect(page.get_by_test_id("tab-lpu")).to_be_visible()
        await expect(page.get_by_test_id("card-devices")).to_contain_text("12")
        await expect(page.get_by_test_id("devices-table")).to_contain_text("lpu-node-2")
        await drawn_chart(page)
        await shot(page, language, "10-lpu-monitoring")
    await bounded(context.close(), "closing the Korean context")


async def drawn_chart(page: Page) -> None:
    """The monitoring chart, drawn: a sandbox's data may be younger than the 1 h chart's first step,
    and then the chart says so (and that 15m shows it sooner), so the test takes the 15m range."""
    chart, empty = page.get_by_test_id("chart"), page.get_by_test_id("chart-empty")
    await expect(chart.or_(empty)).to_be_visible(timeout=20_000)
    if await empty.is_visible():
        await page.get_by_test_id("chart-range").get_by_text("15m", exact=True).click()
    await expect(chart).to_be_visible(timeout=20_000)


async def wizard_state(page: Page, language: Language, state: str) -> None:
    """The wizard in `state`, read as its reader would (in the reader's language) and photographed."""
    await browser_shot(page, f"{language}-11-wizard-{state}")  # first: a failing check has its picture
    await speaks(page, language, f"the wizard, {state}")


async def tried(page: Page, language: Language, expression: str) -> None:
    """`expression` as the utilization, tried on Prometheus with its Test."""
    await page.get_by_label(text(language, "wizard.metric.utilization")).fill(expression)
    await page.get_by_role("button", name=text(language, "wizard.test"), exact=True).first.click()
    await expect(page.get_by_text(text(language, "wizard.test.running"))).to_have_count(0, timeout=15_000)


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_wizard_says_what_is_wrong_in_the_readers_language(
    sandbox: SandboxRun, browser: Browser, language: Language
) -> None:
    url = sandbox.state["nufi_url"]
    context, page = await signed_in_admin(browser, language, url)
    await page.get_by_role("button", name=text(language, "devices.add")).click()
    await page.get_by_label(text(language, "wizard.field.name")).fill("Broken NPU")
    await page.get_by_label(text(language, "wizard.field.vendor")).fill("Example")
    key = page.get_by_label(text(language, "wizard.field.resource_key"))

    await key.fill("Bad Key!")
    await expect(page.get_by_text(text(language, "wizard.key.invalid"))).to_be_visible(timeout=15_000)
    await wizard_state(page, language, "bad-key")

    # A valid key no node advertises: the live check says so, and Next asks before going on.
    await key.fill("example.com/not-installed")
    await expect(page.get_by_text(text(language, "wizard.key.not_found"))).to_be_visible(timeout=15_000)
    await wizard_state(page, language, "key-not-found")
    await page.get_by_role("button", name=text(language, "wizard.next")).click()
    title = text(language, "wizard.key.confirm.title", resource_key="example.com/not-installed")
    await expect(page.locator(".q-dialog")).to_contain_text(title)
    await expect(page.locator(".q-dialog")).to_contain_text(text(language, "wizard.key.confirm.body"))
    await wizard_state(page, language, "key-confirm")
    await page.get_by_role("button", name=text(language, "wizard.key.confirm.go_on")).click()
    await expect(page.get_by_label(text(language, "wizard.label.node"))).to_be_visible()

    await page.get_by_label(text(language, "wizard.label.node")).fill("node")
    await page.get_by_label(text(language, "wizard.label.device")).fill("device")
    parse_error = render(language, "metric_check.unparsable_quoted", {"expression": "sum("})
    await tried(page, language, "sum(")
    await expect(page.get_by_text(parse_error)).to_be_visible()
    await wizard_state(page, language, "parse-error")

    await tried(page, language, "nufi_no_such_metric")
    no_series = render(language, "metric_check.no_series", {"query": "nufi_no_such_metric"})
    await expect(page.get_by_text(no_series[:1].upper() + no_series[1:])).to_be_visible()
    await wizard_state(page, language, "no-series")

    # `up` has series (Prometheus' own targets), none with a node or device label.
    await tried(page, language, "up")
    missing = render(language, "metric_check.label_absent", {"count": 5, "total": 5, "name": "device"})
    await expect(page.get_by_text(re.compile(re.escape(missing).replace("5", r"\d+")))).to_be_visible()
    await wizard_state(page, language, "missing-labels")
    await page.get_by_role("button", name=text(language, "wizard.restart")).click()
    await expect(page.get_by_label(text(language, "wizard.field.name"))).to_have_value("")
    await bounded(context.close(), "closing the context")
