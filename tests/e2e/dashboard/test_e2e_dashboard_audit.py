"""The audit log in a real browser (Debian's Chromium, driven by Playwright) against a running sandbox,
in Korean and in English: after a project, its quota and a raise of it, a lab, a deployment, a thermal
policy change and a Save on the unchanged policy card, every record reads in the reader's words (the
action, the type's name, on/off, units), with no action code, JSON or Python repr on the page, and the
Save that changed nothing is not there. Screenshots under test-results/dashboard/."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.async_api import Browser, Page, expect

from e2e.browser_support import LOCALES, reader_text, shot, sign_in, speaks
from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun, bearer, token
from nufi.devices.audit import ACTIONS
from nufi.ui.i18n import Language, text

PROJECT = "audit-walk"
LPU = LPU_REGISTRATION["name"]
# What the walk did, each once, but the quota: set, then raised.
DONE = {
    "device_type.create": 1,
    "project.create": 1,
    "project.quota.set": 2,
    "lab.create": 1,
    "deployment.create": 1,
    "thermal_policy.update": 1,
}


@pytest.fixture(scope="module")
def walked(sandbox: SandboxRun) -> Iterator[httpx.Client]:
    """The seed walk's changes, made through the API as the admin: the LPU, a project with `user`, its
    LPU quota of 3 raised to 4, a Jupyter lab, a deployment, and the LPU's policy switched on at 90 °C."""
    headers = bearer(token(sandbox.state, "admin", "admin"))
    with httpx.Client(base_url=sandbox.state["nufi_url"], headers=headers, timeout=30.0) as api:
        base = f"/api/v1/projects/{PROJECT}"
        lab = {"name": "notes", "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}}
        deployment = {
            "name": "chat",
            "image": sandbox.state["images"]["inference"],
            "args": ["inference"],
            "accelerator": {"device_type": "lpu", "count": 1},
        }
        policy = {"enabled": True, "trip_celsius": 90.0, "resume_celsius": 80.0}
        answers = [
            api.post("/api/v1/admin/devices", json=LPU_REGISTRATION),
            api.post("/api/v1/admin/projects", json={"name": PROJECT, "members": ["user"]}),
            api.put(f"/api/v1/admin/projects/{PROJECT}/quotas", json={"devices": {"lpu": 3}}),
            api.put(f"/api/v1/admin/projects/{PROJECT}/quotas", json={"devices": {"lpu": 4}}),
            api.post(f"{base}/labs", json=lab | {"storage_gib": 1}),
            api.post(f"{base}/deployments", json=deployment),
            api.put("/api/v1/admin/thermal/policies/lpu", json=policy),
        ]
        assert [a.status_code for a in answers] == [201, 201, 200, 200, 201, 201, 200], [
            a.text for a in answers
        ]
        yield api


async def save_the_unchanged_policy(page: Page, language: Language, url: str) -> None:
    await page.goto(f"{url}/admin/thermal")
    card = page.get_by_test_id("thermal-policy-lpu")
    await card.get_by_role("button", name=text(language, "thermal.save")).click()
    await expect(page.get_by_text(text(language, "thermal.saved", device_type=LPU))).to_be_visible()


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_audit_log_reads_in_the_readers_words_and_leaves_out_a_save_that_changed_nothing(
    sandbox: SandboxRun, walked: httpx.Client, browser: Browser, language: Language
) -> None:
    url = sandbox.state["nufi_url"]
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.goto(f"{url}/admin/thermal")
    await sign_in(page, "admin")
    await save_the_unchanged_policy(page, language, url)

    await page.goto(f"{url}/admin/audit")
    records = page.get_by_test_id("audit-record")
    for action, times in DONE.items():
        await expect(records.filter(has_text=text(language, f"audit.action.{action}"))).to_have_count(times)
    devices, trip = text(language, "audit.field.devices"), text(language, "audit.field.trip_celsius")
    enabled, on, off = (
        text(language, key) for key in ("audit.field.enabled", "audit.value.on", "audit.value.off")
    )
    quota = records.filter(has_text=text(language, "audit.action.project.quota.set")).first
    await expect(quota).to_contain_text(f"{devices} · {LPU}: 3 → 4")
    policy = records.filter(has_text=text(language, "audit.action.thermal_policy.update"))
    await expect(policy).to_contain_text(f"{enabled}: {off} → {on}")
    await expect(policy).to_contain_text(f"{trip}: 85.0 °C → 90.0 °C")
    await speaks(page, language, "the audit log")
    await no_raw_text(page)
    await shot(page, f"{language}-40-audit")

    # A creation's fold lists what it made in words; the stored JSON waits in a fold of its own.
    created = records.filter(has_text=text(language, "audit.action.deployment.create"))
    await created.locator(".q-item").first.click()
    await expect(created).to_contain_text(f"{text(language, 'audit.field.device_type')}: {LPU}")
    await expect(created).to_contain_text(text(language, "audit.raw"))
    await speaks(page, language, "a deployment's record, open")
    await no_raw_text(page)
    await shot(page, f"{language}-41-audit-created")
    await context.close()


async def no_raw_text(page: Page) -> None:
    shown = await reader_text(page)
    raw = [code for code in ACTIONS if code in shown]
    raw += [
        mark for mark in ('{"', '": ', "source", "Message(", "hyperaccel.ai/lpu", "'lpu'") if mark in shown
    ]
    assert raw == [], raw
