"""The LPU's health and a hot LPU as a reader meets them in a running sandbox, in Korean and in English,
photographed: the wizard's step 2 maps the mock exporter's `lpu_health`, its Test answers with samples
from both LPU nodes (memory as sizes), and a health that is not 0 or 1 is named; then, the LPU
registered with its health and lpu-node-1 forced to 95 °C, Monitoring marks the hot devices "과열:
트래픽 차단" / "Hot: traffic cut" with no word meaning "fine" beside it, the cool node's devices
"상태 정상" / "Healthy", the NVIDIA GPUs (whose type maps no health) no health at all, and the chart of
a type registered a moment ago opens on its shortest range. The tests run in order on one sandbox.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Iterator

import pytest
from playwright.async_api import Browser, Page, expect

from e2e.browser_support import LOCALES, chromium, shot, sign_in, speaks
from e2e.e2e_sandbox_support import SandboxRun
from nufi.ui.i18n import Language, text
from support.lpu_type import LPU_METRICS, LPU_RESOURCE_KEY, lpu_type
from support.polling import poll

from .thermal_support import COOL_NODE, HOT_NODE, POLICY, World, force, thermal_world

REGISTRATION = lpu_type(metrics=copy.deepcopy(LPU_METRICS) | {"health": "lpu_health"})
LANGUAGES: tuple[Language, ...] = ("ko", "en")
# Each quantity's Test answers with a tick: utilization, memory used and total, temperature, health.
TICKS = 5
WITHIN_MS = 60_000


@pytest.fixture(scope="module")
def world(sandbox: SandboxRun) -> Iterator[World]:
    with thermal_world(sandbox, registration=REGISTRATION) as world:
        yield world


async def _signed_in(browser: Browser, base: str, language: Language, path: str) -> Page:
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.goto(base + path)
    await sign_in(page, "admin")
    return page


async def _wizard_step_two(page: Page, language: Language) -> None:
    """Step 1 of Add Device filled for the LPU, then on to step 2."""
    await page.get_by_role("button", name=text(language, "devices.add")).click()
    await page.get_by_label(text(language, "wizard.field.name")).fill("HyperAccel LPU")
    await page.get_by_label(text(language, "wizard.field.vendor")).fill("HyperAccel")
    await page.get_by_label(text(language, "wizard.field.id")).fill(f"lpu-{language}")
    await page.get_by_label(text(language, "wizard.field.resource_key")).fill(LPU_RESOURCE_KEY)
    await expect(page.get_by_text(text(language, "wizard.key.found"))).to_be_visible(timeout=15_000)
    await page.get_by_role("button", name=text(language, "wizard.next")).click()
    await expect(page.get_by_label(text(language, "wizard.label.node"))).to_be_visible()


async def _wizard_health(page: Page, language: Language) -> None:
    await _wizard_step_two(page, language)
    for key in ("node", "device", "pod", "namespace"):
        await page.get_by_label(text(language, f"wizard.label.{key}")).fill(key)
    await page.get_by_label(text(language, "wizard.metric.utilization")).fill(LPU_METRICS["utilization"])
    await page.get_by_label(text(language, "wizard.memory.used")).fill(LPU_METRICS["memory"]["used"])
    await page.get_by_label(text(language, "wizard.memory.total")).fill(LPU_METRICS["memory"]["total"])
    await page.get_by_label(text(language, "wizard.metric.temperature")).fill(LPU_METRICS["temperature"])
    health = page.get_by_label(text(language, "wizard.metric.health"))
    await expect(page.get_by_text(text(language, "wizard.hint.health"))).to_be_visible()
    tests = page.get_by_role("button", name=text(language, "wizard.test"), exact=True)

    # A health that is not 0 or 1 (the mock's 1 tripled): the value seen is named, with what to give.
    await health.fill("lpu_health * 3")
    await tests.last.click()
    seen = "(예: 3)" if language == "ko" else "(e.g. 3)"
    await expect(page.get_by_text(seen)).to_be_visible(timeout=WITHIN_MS)
    await speaks(page, language, "the wizard, a health that is not 0 or 1")
    await shot(page, f"health-{language}-wizard-implausible")

    await health.fill("lpu_health")
    for index in range(await tests.count()):
        await tests.nth(index).click()
    await expect(page.get_by_text(text(language, "wizard.test.ok"))).to_have_count(TICKS, timeout=WITHIN_MS)
    await expect(page.get_by_text(seen)).to_have_count(0)
    tables = page.locator("table")
    # Samples from both LPU nodes, memory as a size rather than a byte count.
    await expect(tables.filter(has_text=COOL_NODE).first).to_be_visible()
    await expect(tables.filter(has_text="16.0 GiB").first).to_be_visible()
    await expect(page.get_by_text("17,179,869,184")).to_have_count(0)
    await speaks(page, language, "the wizard, health mapped and tested")
    await shot(page, f"health-{language}-wizard-step2")

    await page.get_by_role("button", name=text(language, "wizard.next")).click()
    await expect(page.get_by_text(text(language, "wizard.review.title"))).to_be_visible()
    await expect(page.get_by_text(text(language, "wizard.metric.health")).first).to_be_visible()
    await expect(page.get_by_text("lpu_health", exact=True).first).to_be_visible()
    await shot(page, f"health-{language}-wizard-review")
    # Nothing saved: the next test registers the LPU itself.
    await page.get_by_role("button", name=text(language, "wizard.restart")).click()
    await expect(page.get_by_label(text(language, "wizard.field.name"))).to_have_value("")


def test_the_wizard_maps_health_and_its_test_answers_in_both_languages(sandbox: SandboxRun) -> None:
    async def walk() -> None:
        async with chromium() as browser:
            for language in LANGUAGES:
                page = await _signed_in(browser, sandbox.state["nufi_url"], language, "/admin/devices")
                await _wizard_health(page, language)
                await page.context.close()

    asyncio.run(walk())


async def _hot_monitoring(page: Page, language: Language) -> None:
    table = page.get_by_test_id("devices-table")
    hot_mark = text(language, "monitoring.thermal.hot")
    healthy = text(language, "monitoring.health.ok")
    await expect(table).to_contain_text(hot_mark, timeout=WITHIN_MS)
    hot_rows = table.locator("tbody tr", has=page.locator('[data-state="hot"]'))
    await expect(hot_rows).to_have_count(4)
    # Beside the hot mark nothing says the device is fine: no health chip, no freshness "OK".
    await expect(hot_rows.locator('[data-state="healthy"]')).to_have_count(0)
    for word in (healthy, "정상" if language == "ko" else "OK"):
        for index in range(4):
            cells = await hot_rows.nth(index).locator(".q-chip").all_inner_texts()
            assert word not in cells, (language, cells)
    cool_rows = table.locator("tbody tr", has_text=COOL_NODE)
    await expect(cool_rows.locator('[data-state="healthy"]')).to_have_count(4)
    await expect(cool_rows.first).to_contain_text(healthy)
    # Registered a moment ago: the chart opens on its shortest range, not as a sliver of an hour.
    await expect(page.get_by_test_id("chart-range").locator('[aria-pressed="true"]')).to_have_text("15m")
    await speaks(page, language, "Monitoring, a hot device")
    await shot(page, f"health-{language}-monitoring-hot")


async def _no_health_claim(page: Page, language: Language) -> None:
    """The NVIDIA GPUs' type maps no health: their rows make no health claim at all."""
    await page.get_by_test_id("tab-nvidia-gpu").click()
    table = page.get_by_test_id("devices-table")
    await expect(table).to_contain_text("gpu-node-1", timeout=WITHIN_MS)
    await expect(table.locator('[data-state="healthy"]')).to_have_count(0)
    await expect(table).not_to_contain_text(text(language, "monitoring.health.ok"))
    await shot(page, f"health-{language}-monitoring-no-health")


def test_monitoring_marks_a_hot_device_without_calling_it_fine(world: World) -> None:
    assert world.nufi.put("/api/v1/admin/thermal/policies/lpu", json=POLICY).status_code == 200
    force(world, HOT_NODE, 95)
    poll(lambda: (world.node_status(HOT_NODE) or {}).get("state") == "hot", 60, 0.5, "hot in the status")
    started = time.monotonic()

    async def walk() -> None:
        async with chromium() as browser:
            for language in LANGUAGES:
                page = await _signed_in(browser, world.sandbox.state["nufi_url"], language, "/?type=lpu")
                await _hot_monitoring(page, language)
                await _no_health_claim(page, language)
                await page.context.close()

    asyncio.run(walk())
    print(f"walked Monitoring in both languages in {time.monotonic() - started:.1f} s")
