"""Saving a device type in the wizard while Prometheus cannot be reached, in a real browser (Debian's
Chromium, driven by Playwright): `nufi serve` over the run's dev cluster (whose nodes offer the LPU),
its Prometheus URL a closed loopback port. The wizard says that Prometheus cannot be reached and that
the metrics were therefore not checked, and offers the save without the metric check, which saves the
type; in Korean and in English (screenshots under test-results/dashboard)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.async_api import Browser, Page, expect

from e2e.browser_support import LOCALES, shot, sign_in, speaks
from integration.ui.served_dashboard import Served, served_dashboard
from nufi.ui.i18n import Language, text
from nufi.ui.wizard.form import WIZARD_PATH
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.loopback import closed_port
from support.lpu_type import LPU_LABELS, LPU_METRICS, LPU_RESOURCE_KEY


@pytest.fixture(scope="module")
def nufi(
    cluster: DevClusterProcess, idp: IdentityProviderProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    with served_dashboard(
        tmp_path_factory.mktemp("nufi"),
        idp,
        NUFI_KUBECONFIG=str(cluster.kubeconfig),
        NUFI_PROMETHEUS_URL=f"http://127.0.0.1:{closed_port()}",
    ) as served:
        yield served


async def fill_the_wizard(page: Page, language: Language, type_id: str) -> None:
    def t(key: str) -> str:
        return text(language, key)

    await page.get_by_label(t("wizard.field.name")).fill(f"Offline LPU {language}")
    await page.get_by_label(t("wizard.field.vendor")).fill("HyperAccel")
    await page.get_by_label(t("wizard.field.id")).fill(type_id)
    await page.get_by_label(t("wizard.field.resource_key")).fill(LPU_RESOURCE_KEY)
    await expect(page.get_by_text(t("wizard.key.found"))).to_be_visible(timeout=15_000)
    await page.get_by_role("button", name=t("wizard.next")).click()
    for key, value in LPU_LABELS.items():
        await page.get_by_label(t(f"wizard.label.{key}")).fill(value)
    await page.get_by_label(t("wizard.metric.utilization")).fill(LPU_METRICS["utilization"])
    await page.get_by_label(t("wizard.memory.used")).fill(LPU_METRICS["memory"]["used"])
    await page.get_by_label(t("wizard.memory.total")).fill(LPU_METRICS["memory"]["total"])
    await page.get_by_label(t("wizard.metric.temperature")).fill(LPU_METRICS["temperature"])
    await page.get_by_role("button", name=t("wizard.next")).click()
    await expect(page.get_by_text(t("wizard.review.title"))).to_be_visible()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_saving_while_prometheus_is_down_says_so_and_offers_the_save_without_the_metric_check(
    nufi: Served, browser: Browser, idp: IdentityProviderProcess, language: Language
) -> None:
    type_id = f"offline-lpu-{language}"
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    try:
        await page.goto(f"{nufi.url}{WIZARD_PATH}")
        await sign_in(page, "admin")
        await fill_the_wizard(page, language, type_id)

        await page.get_by_role("button", name=text(language, "wizard.save"), exact=True).click()
        down = page.get_by_test_id("wizard-prometheus-down")
        await expect(down).to_be_visible(timeout=90_000)
        await expect(down).to_contain_text(text(language, "wizard.unchecked.title"))
        await expect(down).to_contain_text(text(language, "wizard.unchecked.body"))
        # Nothing was saved yet: the page is still the wizard's review.
        await expect(page.get_by_text(text(language, "wizard.review.title"))).to_be_visible()
        await shot(page, f"{language}-18-wizard-prometheus-down")
        await speaks(page, language, "the wizard with Prometheus down")

        await page.get_by_role("button", name=text(language, "wizard.unchecked.save")).click()
        # Generous: a loaded machine took tens of seconds here.
        await expect(page).to_have_url(f"{nufi.url}/admin/devices", timeout=90_000)
        await expect(page.get_by_text(f"Offline LPU {language}")).to_be_visible()
        await shot(page, f"{language}-19-saved-without-metric-check")
    finally:
        await context.close()
        # One type per resource key: the other language's test registers the same key.
        admin = {"Authorization": f"Bearer {idp.password_token('admin', 'admin')}"}
        async with httpx.AsyncClient(base_url=nufi.url, headers=admin, timeout=30) as api:
            await api.delete(f"/api/v1/admin/devices/{type_id}")
