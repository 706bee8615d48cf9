"""The monitoring page in a real browser (Debian's Chromium, driven by Playwright) while NuFi reads a
VictoriaMetrics that hides the newest 5 s of data (its `-search.latencyOffset`; 30 s by default, which
tests/integration/victoriametrics holds NuFi to), against a staleness limit of 3 s: `nufi serve` with
sign-in against the run's identity provider, a DCGM exporter's series scraped every second, and the
page saying above the table how late the data is, in Korean and in English (screenshots under
test-results/dashboard)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Browser, expect

from e2e.browser_support import LOCALES, shot, sign_in, speaks
from integration.ui.served_dashboard import Served, served_dashboard
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import ScrapeJob
from nufi_sandbox.victoriametrics import VictoriaMetricsServer
from support.exporter import serving_text

# Two GPUs of one node, as the DCGM exporter writes them (the official NVIDIA preset reads these).
DCGM = """\
DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="gpu-late-1",UUID="GPU-0"} 35
DCGM_FI_DEV_GPU_UTIL{gpu="1",Hostname="gpu-late-1",UUID="GPU-1"} 70
DCGM_FI_DEV_GPU_TEMP{gpu="0",Hostname="gpu-late-1",UUID="GPU-0"} 58
DCGM_FI_DEV_GPU_TEMP{gpu="1",Hostname="gpu-late-1",UUID="GPU-1"} 66
"""
LATE = {"ko": "메트릭 데이터가", "en": "Metrics are arriving"}


@pytest.fixture(scope="module")
def late_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VictoriaMetricsServer]:
    with serving_text(DCGM, name="late-dcgm-exporter") as exporter:
        work = tmp_path_factory.mktemp("victoriametrics")
        jobs = [ScrapeJob("late-dcgm", [exporter])]
        with VictoriaMetricsServer(jobs=jobs, work_dir=work, latency_offset_seconds=5) as server:
            yield server


@pytest.fixture(scope="module")
def nufi(
    late_engine: VictoriaMetricsServer, idp: IdentityProviderProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("nufi")
    with served_dashboard(
        work,
        idp,
        NUFI_PROMETHEUS_URL=late_engine.url,
        NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS="1",
    ) as served:
        yield served


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_monitoring_page_says_the_data_is_late(
    nufi: Served, late_engine: VictoriaMetricsServer, browser: Browser, language: str
) -> None:
    # The first samples show only once they are older than the engine's latency offset.
    await late_engine.wait_for_series('DCGM_FI_DEV_GPU_TEMP{job="late-dcgm"}', timeout=60)
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(f"{nufi.url}/")
        await sign_in(page, "admin")
        await page.get_by_test_id("tab-nvidia-gpu").click()
        await expect(page.get_by_test_id("devices-table")).to_contain_text("gpu-late-1")
        late = page.get_by_test_id("metrics-late")
        await expect(late).to_be_visible(timeout=30_000)
        await expect(late).to_contain_text(LATE[language])
        await expect(late).to_contain_text("-search.latencyOffset")
        await shot(page, f"{language}-17-monitoring-late")
        await speaks(page, language, "monitoring with late metrics")
    finally:
        await context.close()
