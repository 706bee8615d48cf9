"""The workload pages in a real browser (Debian's Chromium, driven by Playwright): Deployments, Labs and
Admin → Projects, in Korean and in English, with their lists, an empty state, errors beside their
fields, the dialogs, a project's quotas (with usage, without, and refused) and what a non-admin gets;
a screenshot of each under test-results/dashboard/workloads-*.png.

The world (`workload_pages_support`): NuFi served in this process over a dev cluster with LPU nodes,
like the simulated-user tests' world; the signed-in person is named in a request header.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from e2e.workloads.workload_pages_support import PROJECT, World, open_as, shot, t
from support.lpu_type import LPU_RESOURCE_KEY


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_deployments_list_form_errors_and_dialogs(
    world: World, browser: Browser, language: str
) -> None:
    page = await open_as(browser, "user", language, f"{world.url}/deployments?project={PROJECT}")
    table = page.get_by_test_id("deployments-table")
    await expect(table).to_contain_text("llm-chat")
    await expect(table.locator('[data-status="Ready"]').first).to_be_visible(timeout=20000)
    # The Pending reason is worded from its code in the page's language.
    short = {
        "ko": "HyperAccel LPU 5개가 남은 노드가 없습니다",
        "en": "no node has 5 free HyperAccel LPU",
    }
    await expect(table).to_contain_text(short[language])
    # The type by its name: its resource key is no word for a person.
    await expect(table).not_to_contain_text(LPU_RESOURCE_KEY)
    await expect(page.get_by_test_id("dep-accelerator")).to_contain_text("HyperAccel LPU")
    in_use = t(language, "workloads.quota.in_use", name="HyperAccel LPU", used=19, quota=40)
    await expect(page.get_by_test_id("dep-accelerator-quota")).to_have_text(in_use)
    await shot(page, language, "deployments")

    await page.get_by_label(t(language, "workloads.field.name")).fill("Bad_Name")
    await page.get_by_label(t(language, "deployments.field.image")).fill("nufi-mock:inference")
    await page.get_by_label(t(language, "workloads.field.count")).fill("9")
    await page.get_by_role("button", name=t(language, "deployments.action.create")).click()
    await expect(page.get_by_text("DNS-1123").first).to_be_visible()
    await expect(page.get_by_text(t(language, "workloads.error.invalid"))).to_be_visible()
    await shot(page, language, "deployments-error")
    # Past the form's own checks, the service's refusal lands beside the field it names.
    await page.get_by_label(t(language, "workloads.field.name")).fill("too-many")
    await page.get_by_role("button", name=t(language, "deployments.action.create")).click()
    at_most = {"ko": "최대 6개까지 요청하세요", "en": "ask for at most 6"}
    await expect(page.get_by_text(at_most[language])).to_be_visible()
    never = {"ko": "파드 하나에 HyperAccel LPU 9개를", "en": "no node can ever give 9 HyperAccel LPU"}
    await expect(page.get_by_text(never[language])).to_be_visible()
    await expect(page.get_by_text(LPU_RESOURCE_KEY)).to_have_count(0)
    await shot(page, language, "deployments-error-count")

    await table.get_by_role("button", name=t(language, "deployments.action.scale")).first.click()
    await expect(page.get_by_text(t(language, "deployments.scale.title", name="llm-big"))).to_be_visible()
    await shot(page, language, "deployments-scale")
    await page.keyboard.press("Escape")
    await table.get_by_role("button", name=t(language, "workloads.action.delete")).first.click()
    await expect(page.get_by_text(t(language, "deployments.delete.title", name="llm-big"))).to_be_visible()
    await shot(page, language, "deployments-delete")
    await page.context.close()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_deployments_accelerator_counts_and_count_warnings(
    world: World, browser: Browser, language: str
) -> None:
    """The drop-down open with its per-node counts, the amber and the red warning under the count, a
    status chip and the age's tooltip with the time on the browser's clock."""
    page = await open_as(browser, "user", language, f"{world.url}/deployments?project={PROJECT}")
    table = page.get_by_test_id("deployments-table")
    await expect(table.locator('[data-status="Pending"]').first).to_be_visible(timeout=20000)
    await expect(table).to_contain_text("HyperAccel LPU")
    await expect(table).not_to_contain_text("lpu \N{MULTIPLICATION SIGN}")
    created = table.locator("[data-created]").first
    await created.hover()
    tooltip = page.locator(".q-tooltip time[data-local]")
    await expect(tooltip).to_be_visible()
    # The page's script has put the instant on the browser's clock: no longer the UTC text.
    await expect(tooltip).not_to_contain_text("UTC")
    await shot(page, language, "deployments-age-tooltip")
    await page.mouse.move(0, 0)

    await page.get_by_test_id("dep-accelerator").click()
    most_now = {"ko": "지금 한 노드에 최대", "en": "on one node now"}
    option = page.get_by_role("option").filter(has_text="HyperAccel LPU")
    await expect(option).to_contain_text(most_now[language])
    await expect(page.locator(".q-menu")).to_be_visible()
    await shot(page, language, "deployments-accelerator-options", full=False)
    await page.keyboard.press("Escape")

    count = page.get_by_label(t(language, "workloads.field.count"))
    fit = page.get_by_test_id("dep-accelerator-fit")
    await count.fill("5")
    await expect(fit).to_have_attribute("data-level", "now")
    await expect(fit).to_have_class(re.compile("text-amber-800"))
    await shot(page, language, "deployments-count-not-now")
    await count.fill("7")
    await expect(fit).to_have_attribute("data-level", "never")
    await expect(fit).to_have_class(re.compile("text-negative"))
    await shot(page, language, "deployments-count-never")
    # Past the project's quota (40, 19 in use) before any node's count: red, naming the quota's room.
    await count.fill("22")
    # The quota's room is asked of the server: on a busy machine that answer takes a while.
    await expect(fit).to_have_attribute("data-level", "quota", timeout=20_000)
    await expect(fit).to_contain_text("21")
    await shot(page, language, "deployments-count-quota")
    await count.fill("1")
    await expect(fit).to_be_hidden()
    await page.context.close()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_labs_list_and_form(world: World, browser: Browser, language: str) -> None:
    page = await open_as(browser, "user", language, f"{world.url}/labs?project={PROJECT}")
    table = page.get_by_test_id("labs-table")
    await expect(table).to_contain_text("notebook")
    await expect(table.locator('[data-status="Stopped"]')).to_be_visible(timeout=20000)
    await expect(table.locator('[data-status="Pending"]')).to_be_visible(timeout=20000)
    await expect(table.locator('[data-status="Ready"]')).to_be_visible(timeout=20000)
    open_link = page.get_by_test_id("open-notebook")
    await expect(open_link).to_have_attribute("href", f"/labs/{PROJECT}/notebook/")
    await expect(open_link).to_have_attribute("target", "_blank")
    await shot(page, language, "labs")

    await page.get_by_label(t(language, "workloads.field.name")).fill("9lab")
    await page.get_by_role("button", name=t(language, "labs.action.create")).click()
    letter = {"ko": "영문자로 시작해야 합니다", "en": "must start with a letter"}
    await expect(page.get_by_text(letter[language])).to_be_visible()
    await shot(page, language, "labs-error")
    await page.context.close()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_someone_in_no_project_sees_the_empty_state(
    world: World, browser: Browser, language: str
) -> None:
    page = await open_as(browser, "newcomer", language, f"{world.url}/deployments")
    await expect(page.get_by_test_id("no-projects")).to_have_text(t(language, "workloads.no_projects.title"))
    await shot(page, language, "deployments-empty")
    await page.goto(f"{world.url}/admin/projects")
    await expect(page.get_by_test_id("forbidden")).to_be_visible()
    await shot(page, language, "projects-forbidden")
    await page.context.close()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_admin_projects_with_members_and_the_dry_run(
    world: World, browser: Browser, language: str
) -> None:
    page = await open_as(browser, "admin", language, f"{world.url}/admin/projects")
    await expect(page.get_by_text("research", exact=True)).to_be_visible()
    await expect(page.get_by_text("alice", exact=True)).to_be_visible()
    # team-llm's quota with its usage; research has none.
    await expect(page.get_by_text(t(language, "projects.quota.used", used=19, hard=40))).to_be_visible()
    await expect(page.get_by_text(t(language, "projects.quota.none"))).to_have_count(1)
    await shot(page, language, "projects")

    card = page.locator(".q-card").filter(has_text=PROJECT).last
    storage = card.get_by_label(t(language, "projects.quota.field.storage"))
    await expect(storage).to_have_value("100Gi")
    await storage.fill("lots")
    await card.get_by_role("button", name=t(language, "projects.quota.action.save")).click()
    await expect(card.get_by_text(t(language, "workloads.error.invalid"))).to_be_visible()
    await card.scroll_into_view_if_needed()
    await shot(page, language, "projects-quota-error")
    await storage.fill("100Gi")

    await page.get_by_label(t(language, "workloads.field.name")).first.fill("Bad Name")
    await page.get_by_role("button", name=t(language, "projects.action.create")).click()
    await expect(page.get_by_text("DNS-1123").first).to_be_visible()
    await shot(page, language, "projects-error")

    await card.get_by_role("button", name=t(language, "projects.action.delete")).click()
    await expect(page.get_by_text(t(language, "projects.delete.title", name=PROJECT))).to_be_visible()
    await expect(page.get_by_text("Deployment/llm-chat")).to_be_visible()
    await shot(page, language, "projects-dry-run")
    await page.context.close()
