"""The workloads as a person makes them in a real browser (Debian's Chromium, driven by Playwright)
against a running sandbox, in Korean and in English: an admin creates a project, deploys an inference
server choosing the LPU from the Accelerator drop-down and watches it become Ready, then creates a
Jupyter lab and opens it — a real JupyterLab, through NuFi. A screenshot of each step is saved under
test-results/dashboard/."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.async_api import Browser, Page, expect

from e2e.browser_support import LOCALES, shot, sign_in
from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun, bearer, token
from nufi.ui.i18n import Language, text

READY_MS = 120_000


@pytest.fixture(scope="module")
def admin_api(sandbox: SandboxRun) -> Iterator[httpx.Client]:
    """NuFi's API as the admin, with the LPU registered (what the seed walk does in the wizard)."""
    headers = bearer(token(sandbox.state, "admin", "admin"))
    with httpx.Client(base_url=sandbox.state["nufi_url"], headers=headers, timeout=30.0) as api:
        registered = api.post("/api/v1/admin/devices", json=LPU_REGISTRATION)
        assert registered.status_code == 201, registered.text
        yield api


async def choose_the_lpu(page: Page, select: str) -> None:
    """Open the Accelerator drop-down and pick the LPU, by the type's name its option starts with."""
    name = LPU_REGISTRATION["name"]
    await page.get_by_test_id(select).click()
    await page.get_by_role("option").filter(has_text=re.compile(rf"^{re.escape(name)} — ")).click()
    await expect(page.get_by_test_id(select)).to_contain_text(f"{name} — ")


async def print_the_lpu_from_a_notebook(lab: Page) -> None:
    """A notebook from the launcher; its kernel sees the LPU the lab's pod was given."""
    await lab.locator('.jp-LauncherCard[data-category="Notebook"]').first.click(timeout=60_000)
    # Typed once the kernel is idle and the editor holds it: keys sent while JupyterLab still sets the
    # notebook up are lost.
    await expect(lab.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=60_000)
    cell = lab.locator(".jp-Notebook .jp-Cell .cm-content").first
    code = 'import os; print("LPU:", os.environ["LPU_VISIBLE_DEVICES"])'
    await cell.fill(code)
    await expect(cell).to_have_text(code)
    await cell.press("Shift+Enter")
    output = lab.locator(".jp-OutputArea-output").first
    await expect(output).to_contain_text(re.compile(r"LPU: lpu\d"), timeout=60_000)


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_an_admin_deploys_on_the_lpu_and_opens_a_jupyter_lab(
    sandbox: SandboxRun, admin_api: httpx.Client, browser: Browser, language: Language
) -> None:
    url = sandbox.state["nufi_url"]
    project = f"web-{language}"
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.goto(f"{url}/admin/projects")
    await sign_in(page, "admin")
    await expect(page).to_have_url(f"{url}/admin/projects")

    await page.get_by_label(text(language, "workloads.field.name"), exact=True).fill(project)
    await page.get_by_label(text(language, "projects.field.members")).fill("user")
    await page.get_by_role("button", name=text(language, "projects.action.create")).click()
    await expect(page.get_by_text(text(language, "projects.done.created", name=project))).to_be_visible()
    await shot(page, f"{language}-11-project-created")

    # An inference server on one LPU: the image and its arguments start as the sandbox's.
    await page.goto(f"{url}/deployments?project={project}")
    await page.get_by_label(text(language, "workloads.field.name"), exact=True).fill("chat")
    await expect(page.get_by_label(text(language, "deployments.field.image"))).to_have_value(
        sandbox.state["images"]["inference"]
    )
    await choose_the_lpu(page, "dep-accelerator")
    await page.get_by_role("button", name=text(language, "deployments.action.create")).click()
    row = page.get_by_test_id("deployments-table").get_by_role("row").filter(has_text="chat")
    await expect(row).to_contain_text(text(language, "workloads.status.Ready"), timeout=READY_MS)
    await expect(row).to_contain_text(re.compile(r"lpu-node-[12]"))
    await shot(page, f"{language}-12-deployment-ready")

    # A Jupyter lab on one LPU, opened in a new tab: JupyterLab itself, through NuFi's lab proxy.
    await page.goto(f"{url}/labs?project={project}")
    await page.get_by_label(text(language, "workloads.field.name"), exact=True).fill("notebook")
    await choose_the_lpu(page, "lab-accelerator")
    await page.get_by_role("button", name=text(language, "labs.action.create")).click()
    row = page.get_by_test_id("labs-table").get_by_role("row").filter(has_text="notebook")
    await expect(row).to_contain_text(text(language, "workloads.status.Ready"), timeout=READY_MS)
    await shot(page, f"{language}-13-lab-ready")
    async with context.expect_page() as opened:
        await page.get_by_test_id("open-notebook").click()
    lab = await opened.value
    # On the lab's own origin, never the dashboard's (test_e2e_lab_origins_browser.py).
    lab_origin = f"http://notebook--{project}.localhost:{urlsplit(url).port}"
    await expect(lab).to_have_url(re.compile(re.escape(f"{lab_origin}/labs/{project}/notebook/")))
    await expect(lab).to_have_title(re.compile("JupyterLab"), timeout=60_000)
    await print_the_lpu_from_a_notebook(lab)
    await shot(lab, f"{language}-14-jupyterlab", full_page=False)
    await context.close()

    deleted = await asyncio.to_thread(admin_api.delete, f"/api/v1/admin/projects/{project}")
    assert deleted.status_code == 200, deleted.text
