"""Alerts in the dashboard, fired for real, seen in a real browser (Debian's Chromium through
Playwright), in Korean and in English: the Alerts page empty, then listing a hot LPU once NuFi's own
rule fires in Prometheus; Monitoring marking that device; Admin → Devices showing the type's
thresholds and generated rules, refusing an invalid threshold beside its field and saving an emptied
one; the page's error state once Prometheus is gone. Screenshots: test-results/dashboard/alerts-*.png.

One world for the module, over the run's dev cluster (the world's nodes): the mock LPU exporter
(2 nodes x 2 devices) scraped every second by a Prometheus of this module's own that loads the rule
files NuFi writes (`alerts_target=file`, reloaded by NuFi), and NuFi (API and dashboard) served by
uvicorn in this process; the signed-in person is named in a request header.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from nicegui.testing.general import nicegui_reset_globals
from playwright.async_api import Browser, Page, expect
from pydantic import SecretStr
from starlette.requests import Request

from e2e.browser_support import LOCALES, chromium, speaks
from e2e.browser_support import shot as browser_shot
from nufi.alerts.service import ThresholdsEntry
from nufi.alerts.thresholds import AlertThresholds, HotRule
from nufi.auth import Principal
from nufi.cli import _Faces, build_server
from nufi.config import Settings
from nufi.devices.spec import DeviceTypeCreate
from nufi.messages import Message
from nufi.services import Services
from nufi.ui import context
from nufi.ui.i18n import Language, text
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.lpu_type import lpu_type
from support.polling import until
from support.world import running

from .people import PEOPLE, USER_HEADER

ADMIN = PEOPLE["admin"]
# The device forced hot: its node, its index at the exporter's control endpoint, its label.
HOT = ("lpu-node-1", 1, "lpu1")
ALERTMANAGER = "http://127.0.0.1:9093"
# Fired within a few evaluations (every second), shown within a refresh or two of the pages.
WITHIN = 20.0


@dataclass(frozen=True)
class World:
    url: str
    services: Services
    prometheus: PrometheusServer
    exporter: str
    rules_dir: Path


async def _who(request: Request) -> Principal | None:
    return PEOPLE.get(request.headers.get(USER_HEADER, ""))


@pytest.fixture(scope="module")
def exporter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "nufi_mock",
        "exporter",
        "--profile",
        "lpu",
        "--nodes",
        "lpu-node-1,lpu-node-2",
    ]
    argv += ["--devices-per-node", "2", "--host", "127.0.0.1", "--port", str(port), "--no-pod-resources"]
    process = ManagedProcess("alerts-lpu-exporter", argv, log_dir=tmp_path_factory.mktemp("exporter"))
    process.start()
    try:
        process.wait_ready(
            lambda: httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=1).status_code == 200,
            timeout=30,
            what="the LPU exporter serving /metrics",
        )
        yield f"127.0.0.1:{port}"
    finally:
        process.stop()


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory, exporter: str) -> Iterator[PrometheusServer]:
    work = tmp_path_factory.mktemp("alerts-prometheus")
    (work / "rules").mkdir()
    server = PrometheusServer(
        jobs=[ScrapeJob("lpu", [exporter])], work_dir=work / "server", rule_files=[f"{work}/rules/*.yml"]
    ).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
async def world(
    cluster: DevClusterProcess, prometheus: PrometheusServer, exporter: str
) -> AsyncIterator[World]:
    work = Path(prometheus.config_path).parent.parent
    settings = Settings(
        kubeconfig=cluster.kubeconfig,
        prometheus_url=prometheus.url,
        database_url=SecretStr(f"sqlite+aiosqlite:///{work / 'nufi.db'}"),
        alerts_target="file",
        alerts_rules_dir=work / "rules",
        alertmanager_url=ALERTMANAGER,
        thermal_enabled=False,
        monitoring_scrape_interval_seconds=1,
        monitoring_refresh_seconds=1,
    )
    with fresh_nicegui():
        async with running(build_server(settings, _Faces(api=True, dashboard=True))) as url:
            services = context.services()
            context.attach(services, _who)
            await services.catalog.create(ADMIN, DeviceTypeCreate.model_validate(lpu_type()), force=True)
            await prometheus.wait_for_series('lpu_temperature_celsius{node="lpu-node-2"}', 30)
            yield World(url, services, prometheus, exporter, work / "rules")


@contextmanager
def fresh_nicegui() -> Iterator[None]:
    """NiceGUI's process-wide app as new, for the real server this module mounts it in: the package's
    simulated-user tests leave it started. The modules it forgets afterwards (those that declared
    pages) stay the very objects the rest of the session holds, as `wizard_world.dashboard` does."""
    modules = dict(sys.modules)
    try:
        with nicegui_reset_globals():
            yield
    finally:
        for name, module in modules.items():
            sys.modules.setdefault(name, module)


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


async def open_as(browser: Browser, who: str, language: str, url: str) -> Page:
    page_context = await browser.new_context(
        locale=LOCALES[language],
        viewport={"width": 1400, "height": 900},
        extra_http_headers={USER_HEADER: who},
    )
    page = await page_context.new_page()
    await page.goto(url)
    return page


async def shot(page: Page, language: str, name: str) -> None:
    """Every state photographed is also read: it must speak the page's language only."""
    await speaks(page, language, f"alerts {name}")
    await browser_shot(page, f"alerts-{language}-{name}")


def t(language: str, key: str, **fields: object) -> str:
    chosen: Language = "ko" if language == "ko" else "en"
    return text(chosen, key, **fields)


async def test_alerts_fire_and_show_on_every_page(world: World, browser: Browser) -> None:
    # Nothing fires yet: the LPUs idle near 35 °C, below the thermal trip the hot rule follows.
    pages = {language: await _shows_no_alert(world, browser, language) for language in ("ko", "en")}

    # One LPU forced to 95 °C, and the hot rule lowered to 90 °C held 0 s: NuFi rewrites the rule
    # file, Prometheus reloads it and fires for that device alone.
    await _force_hot(world)
    node, _, device = HOT
    summary = {
        "ko": f"{node}의 HyperAccel LPU 디바이스 {device} 과열 (95 °C)",
        "en": f"HyperAccel LPU device {device} on {node} is hot (95 °C)",
    }
    for language in ("ko", "en"):
        # The pages opened empty show it by themselves, without a reload.
        await _lists_the_hot_device(pages[language], language, summary[language])
        await _monitoring_marks_the_hot_device(world, browser, language, summary[language])


async def _shows_no_alert(world: World, browser: Browser, language: str) -> Page:
    """The Alerts page with nothing firing, left open; the rules' place shown to the admin alone."""
    page = await open_as(browser, "user", language, f"{world.url}/alerts")
    await expect(page.get_by_test_id("alerts-empty")).to_have_text(t(language, "alerting.empty"))
    rules = page.get_by_test_id("alerts-rules")
    await expect(rules).to_contain_text(t(language, "alerting.target.file"))
    # Where the rules are and Alertmanager (whose API shows every pod unmasked) are the admin's.
    await expect(rules).not_to_contain_text(str(world.rules_dir))
    await expect(rules.get_by_role("link")).to_have_count(0)
    await shot(page, language, "empty")
    admin_page = await open_as(browser, "admin", language, f"{world.url}/alerts")
    admin_rules = admin_page.get_by_test_id("alerts-rules")
    await expect(admin_rules).to_contain_text(str(world.rules_dir))
    await expect(admin_rules.get_by_role("link")).to_have_attribute("href", ALERTMANAGER)
    await admin_page.context.close()
    return page


async def _force_hot(world: World) -> None:
    node, index, _ = HOT
    override = {
        "node": node,
        "device": index,
        "metric": "temperature",
        "value": 95,
        "duration_seconds": 600,
    }
    async with httpx.AsyncClient(timeout=5) as client:
        (await client.post(f"http://{world.exporter}/control/override", json=override)).raise_for_status()
    hot = AlertThresholds(hot=HotRule(celsius=90, for_seconds=0))
    await world.services.alerts.put_thresholds(ADMIN, "lpu", hot)

    async def fired() -> bool:
        return any(a["state"] == "firing" for a in await world.prometheus.alerts())

    await until(fired, within=WITHIN, what="the hot-device alert firing in Prometheus")


async def _lists_the_hot_device(page: Page, language: str, summary: str) -> None:
    node, _, device = HOT
    table = page.get_by_test_id("alerts-table")
    await expect(table).to_contain_text(summary, timeout=WITHIN * 1000)
    rows = table.locator("tbody tr")
    await expect(rows).to_have_count(1)
    row = rows.first
    await expect(row.locator('[data-state="hot"]')).to_have_text(t(language, "alerting.state.firing"))
    for shown in (node, device, "95.0 °C", "HyperAccel LPU", t(language, "alerting.severity.critical")):
        await expect(row).to_contain_text(shown)
    await shot(page, language, "firing")
    # Filtered by another type, nothing fires; by the LPU, its alert is back.
    for name, firing in (("NVIDIA GPU", False), ("HyperAccel LPU", True)):
        await page.get_by_test_id("alerts-type").click()
        await page.get_by_role("option", name=name, exact=True).click()
        await expect(page.get_by_test_id("alerts-empty")).to_be_visible(visible=not firing)
    await expect(rows).to_have_count(1)
    await page.context.close()


async def _monitoring_marks_the_hot_device(
    world: World, browser: Browser, language: str, summary: str
) -> None:
    """Monitoring marks the hot device, and only it; the mark's tooltip is the summary."""
    page = await open_as(browser, "user", language, f"{world.url}/?type=lpu")
    mark = page.get_by_test_id("devices-table").locator('[data-state="alert"]')
    await expect(mark).to_have_count(1, timeout=WITHIN * 1000)
    await expect(mark).to_have_text(t(language, "alerting.mark"))
    assert summary in (await mark.get_attribute("title") or "")
    marked = page.get_by_test_id("devices-table").locator(
        "tbody tr", has=page.locator('[data-state="alert"]')
    )
    await expect(marked).to_contain_text(HOT[0])
    await shot(page, language, "monitoring")
    await page.context.close()


async def test_the_admin_section_shows_the_rules_saves_and_refuses_an_invalid_threshold(
    world: World, browser: Browser
) -> None:
    hot = AlertThresholds(hot=HotRule(celsius=90, for_seconds=0))
    for language in ("ko", "en"):
        await world.services.alerts.put_thresholds(ADMIN, "lpu", hot)
        page = await open_as(browser, "admin", language, f"{world.url}/admin/devices?alerts=lpu")
        card = page.get_by_test_id("alert-thresholds-lpu")
        # The page reads the catalog's inventory first: on a busy machine that takes a few seconds.
        source = t(language, "alerting.source.admin", who="admin")
        await expect(card).to_contain_text(source, timeout=WITHIN * 1000)
        # This LPU maps no health expression: no unhealthy rule to switch on.
        await expect(card.get_by_text(t(language, "alerting.kind.hot"), exact=True)).to_be_visible()
        await expect(card.get_by_text(t(language, "alerting.kind.unhealthy"), exact=True)).to_be_hidden()
        # Said under the rules: NuFiDeviceUnhealthy is not generated, with where health is mapped.
        missing = page.get_by_test_id("alert-not-generated-lpu")
        await expect(missing).to_contain_text(
            t(language, "alerting.generated.no_health", device_type="HyperAccel LPU")
        )
        await expect(missing.get_by_role("link")).to_have_attribute("href", "/admin/devices/lpu/edit?step=2")
        rules = page.get_by_test_id("alert-rules-lpu")
        await expect(rules).to_contain_text("NuFiDeviceHot")
        await expect(rules.locator("code").first).to_contain_text(">= 90)")
        await expect(rules).to_contain_text("0s")
        await shot(page, language, "admin")

        celsius = card.get_by_label(t(language, "alerting.field.celsius"))
        save = card.get_by_role("button", name=t(language, "alerting.save"))
        await celsius.fill("10")
        await save.click()
        error = page.get_by_test_id("alert-error-lpu")
        await expect(error).to_contain_text("hot.celsius")
        await expect(error).to_contain_text("30")
        # Beside the field too, and nothing stored.
        await expect(card.locator(".q-field--error")).to_have_count(1)
        await shot(page, language, "admin-error")
        assert (await world.services.alerts.thresholds(ADMIN, "lpu")).thresholds == hot

        # Emptied, the hot rule follows the thermal trip again: saved, said, and written.
        await celsius.fill("")
        await save.click()
        stored = await until(lambda: _following(world), within=WITHIN, what="the emptied temperature saved")
        assert stored.thresholds.hot.for_seconds == 0
        await expect(error).to_have_text("")
        await expect(card.locator(".q-field--error")).to_have_count(0)
        trip = f"{stored.hot_celsius:g}"
        await expect(card).to_contain_text(t(language, "alerting.field.follows", trip=trip))
        await expect(rules.locator("code").first).to_contain_text(f">= {trip})")
        await page.context.close()


async def _following(world: World) -> ThresholdsEntry | None:
    """The LPU's thresholds once its hot rule follows the thermal trip (no temperature of its own)."""
    entry = await world.services.alerts.thresholds(ADMIN, "lpu")
    return entry if entry.thresholds.hot.celsius is None else None


async def test_without_prometheus_the_page_says_so(world: World, browser: Browser) -> None:
    world.prometheus.stop()  # the module's last test: nothing after it needs Prometheus
    # A change NuFi writes out but cannot ask Prometheus to reload: the rules line says so.
    await world.services.alerts.put_thresholds(ADMIN, "lpu", AlertThresholds(hot=HotRule(celsius=91)))
    assert world.services.alerts.sync.status.problem is not None
    for language in ("ko", "en"):
        page = await open_as(browser, "user", language, f"{world.url}/alerts")
        said = t(language, "alerting.unavailable", detail="").rstrip()
        await expect(page.get_by_test_id("alerts-unavailable")).to_contain_text(said)
        await expect(page.get_by_test_id("alerts-table")).to_be_hidden()
        # The rules' status is still said, as it does not come from Prometheus: to a user in neutral
        # words, to an admin as the failed reload naming the Prometheus it could not reach.
        neutral = Message("alerts.status.failing").text("ko" if language == "ko" else "en")
        await expect(page.get_by_test_id("alerts-rules")).to_contain_text(neutral)
        await expect(page.get_by_test_id("alerts-rules")).not_to_contain_text(world.prometheus.url)
        await shot(page, language, "unavailable")
        await page.context.close()
        page = await open_as(browser, "admin", language, f"{world.url}/alerts")
        await expect(page.get_by_test_id("alerts-rules")).to_contain_text(world.prometheus.url)
        await page.context.close()
