"""The project's quota on the deployment form in a real browser, in Korean and in English: replicas times
count past the quota's room warned before submit, the service's refusal after it under the replica
count (the field that must change), the Scale dialog's hint before Apply, and the accelerator last
chosen kept over a reload. Screenshots under test-results/dashboard/workloads-*.png.

The world is the workload pages' (`workload_pages_support`, shared): team-llm's quota of 40 LPUs
has 19 in use.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from e2e.workloads.workload_pages_support import NPU_NAME, PROJECT, World, open_as, shot, t
from support.lpu_type import LPU_RESOURCE_KEY
from support.polling import until

LPU_NAME = "HyperAccel LPU"
ROOM = 21  # 40 - 19
# Words a sentence for a person never holds: the quota's object, the resource key, the other word.
NEVER = ("nufi-accelerators", LPU_RESOURCE_KEY, "쿼터", "0 more", "0개만")


async def _deployments(world: World, browser: Browser, language: str) -> Page:
    return await open_as(browser, "user", language, f"{world.url}/deployments?project={PROJECT}")


def _over(language: str, *, added: int, fitting: int) -> str:
    """The warning for `added` more replicas of one LPU each, past the room of 21."""
    return t(
        language,
        "workloads.fit.quota_replicas",
        name=LPU_NAME,
        quota=40,
        room=ROOM,
        count=1,
        added=added,
        total=added,
        fitting=fitting,
    )


async def _says_nothing_it_should_not(page: Page, language: str) -> None:
    form = page.locator(".q-card").filter(has_text=t(language, "deployments.create.title"))
    said = await form.inner_text()
    assert [word for word in NEVER if word in said] == [], said


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_replicas_times_count_past_the_quota_warned_then_refused_under_replicas(
    world: World, browser: Browser, language: str
) -> None:
    page = await _deployments(world, browser, language)
    await expect(page.get_by_test_id("dep-accelerator")).to_contain_text(LPU_NAME)
    await page.get_by_label(t(language, "workloads.field.name")).fill("chat2")
    await page.get_by_label(t(language, "deployments.field.image")).fill("nufi-mock:inference")
    await page.get_by_label(t(language, "workloads.field.count")).fill("1")
    replicas = page.get_by_label(t(language, "deployments.field.replicas"))
    await replicas.fill("22")
    fit = page.get_by_test_id("dep-accelerator-fit")
    # Each pod fits the room; 22 of them do not: said before submit, with how many replicas fit.
    await expect(fit).to_have_text(_over(language, added=22, fitting=ROOM), timeout=20_000)
    await expect(fit).to_have_attribute("data-level", "quota")
    await _says_nothing_it_should_not(page, language)
    await shot(page, language, "deployments-replicas-over-quota")

    await page.get_by_role("button", name=t(language, "deployments.action.create")).click()
    fix = t(language, "quota.fix.replicas", replicas=ROOM)
    await expect(page.get_by_text(fix)).to_be_visible()
    # Under the replica count, not under the count per pod (which is 1 already).
    under_replicas = page.locator(".nicegui-column").filter(has=replicas).last
    await expect(under_replicas).to_contain_text(fix)
    await expect(under_replicas).to_contain_text(LPU_NAME)
    count_column = page.locator(".nicegui-column").filter(
        has=page.get_by_label(t(language, "workloads.field.count"))
    )
    await expect(count_column.last).not_to_contain_text(fix)
    # The refusal takes the warning's place: said once.
    await expect(fit).to_be_hidden()
    await _says_nothing_it_should_not(page, language)
    await shot(page, language, "deployments-replicas-refused")
    await page.context.close()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_scale_dialog_hints_the_quota_before_apply(
    world: World, browser: Browser, language: str
) -> None:
    page = await _deployments(world, browser, language)
    row = page.get_by_test_id("deployments-table").get_by_role("row").filter(has_text="llm-chat")
    await row.get_by_role("button", name=t(language, "deployments.action.scale")).click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label(t(language, "deployments.field.replicas")).fill("25")
    # llm-chat runs 2 replicas of 1 LPU, counted in the 19: 23 more need 23, the room is 21.
    hinted = _over(language, added=23, fitting=2 + ROOM)
    await expect(page.get_by_test_id("scale-fit")).to_have_text(hinted, timeout=20_000)
    await shot(page, language, "deployments-scale-over-quota")
    await dialog.get_by_label(t(language, "deployments.field.replicas")).fill("3")
    await expect(page.get_by_test_id("scale-fit")).to_be_hidden()
    await page.context.close()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_accelerator_chosen_is_kept_over_a_reload(
    world: World, browser: Browser, language: str
) -> None:
    page = await _deployments(world, browser, language)
    select = page.get_by_test_id("dep-accelerator")
    await expect(select).to_contain_text(LPU_NAME)
    await select.click()
    await page.get_by_role("option").filter(has_text=NPU_NAME).click()
    await expect(select).to_contain_text(NPU_NAME)

    async def kept() -> bool:
        return any(cookie["value"] == "npu" for cookie in await page.context.cookies())

    assert await until(kept, within=10)
    await page.reload()
    await expect(page.get_by_test_id("dep-accelerator")).to_contain_text(NPU_NAME)
    await shot(page, language, "deployments-accelerator-kept")
    # Another project's form, and the labs form, keep their own choice.
    await page.goto(f"{world.url}/labs?project={PROJECT}")
    await expect(page.get_by_test_id("lab-accelerator")).to_contain_text(LPU_NAME)
    await page.context.close()
