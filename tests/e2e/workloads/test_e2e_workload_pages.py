"""The workload pages in a real browser (Debian's Chromium, driven by Playwright): Deployments, Labs and
Admin → Projects, in Korean and in English, with their lists, an empty state, errors beside their
fields, the dialogs, a project's quotas (with usage, without, and refused) and what a non-admin gets;
a screenshot of each under test-results/dashboard/workloads-*.png.

NuFi (API and dashboard, as `nufi serve` builds it) is served by uvicorn on a loopback port in this
process, over a dev cluster with LPU nodes and a database file, like the simulated-user tests' world;
the signed-in person is named in a request header (sign-in has its own browser test).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from playwright.async_api import Browser, Page, expect
from pydantic import SecretStr
from starlette.requests import Request

from e2e.browser_support import LOCALES, speaks
from e2e.browser_support import shot as browser_shot
from nufi.auth import Principal
from nufi.cli import _Faces, build_server
from nufi.config import Settings
from nufi.devices.spec import DeviceTypeCreate
from nufi.services import Services
from nufi.ui import context
from nufi.ui.i18n import Language, text
from nufi.workloads.deployments.spec import DeploymentCreate
from nufi.workloads.labs.model import LabRequest
from nufi.workloads.quotas.room import QuotaSpec
from support.dev_cluster import dev_cluster
from support.lpu_type import LPU_RESOURCE_KEY, lpu_type
from support.polling import until
from support.world import running

USER_HEADER = "x-test-user"
PEOPLE = {
    "admin": Principal(subject="s-admin", username="admin", roles=frozenset({"nufi-admin"})),
    "user": Principal(subject="s-user", username="user", roles=frozenset()),
    "newcomer": Principal(subject="s-new", username="newcomer", roles=frozenset()),
}
NODES = """\
nodes:
  - name: lpu-node-1
    capacity: {hyperaccel.ai/lpu: 6}
  - name: lpu-node-2
    capacity: {hyperaccel.ai/lpu: 4}
  - name: cpu-node-1
"""
PROJECT = "team-llm"


@dataclass(frozen=True)
class World:
    url: str
    services: Services


async def _who(request: Request) -> Principal | None:
    return PEOPLE.get(request.headers.get(USER_HEADER, ""))


@pytest.fixture(scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    database = tmp_path_factory.mktemp("workload-pages") / "nufi.db"
    with dev_cluster(NODES, prefix="wlp-") as cluster:
        settings = Settings(
            kubeconfig=cluster.kubeconfig, database_url=SecretStr(f"sqlite+aiosqlite:///{database}")
        )
        async with running(build_server(settings, _Faces(api=True, dashboard=True))) as url:
            services = context.services()
            context.attach(services, _who)
            await _populate(services)
            yield World(url, services)


async def _populate(services: Services) -> None:
    """A project `user` belongs to, with a Ready and a Pending deployment and labs in three states."""
    admin, user = PEOPLE["admin"], PEOPLE["user"]
    await services.catalog.create(admin, DeviceTypeCreate.model_validate(lpu_type()), force=True)
    await services.projects.create(admin, PROJECT, ["user", "alice"])
    await services.projects.create(admin, "research", ["bob"])

    def deployment(name: str, count: int, replicas: int) -> DeploymentCreate:
        return DeploymentCreate.model_validate(
            {
                "name": name,
                "image": "nufi-mock:inference",
                "accelerator": {"device_type": "lpu", "count": count},
                "replicas": replicas,
            }
        )

    def lab(name: str, kind: str, count: int) -> LabRequest:
        return LabRequest.model_validate(
            {"name": name, "kind": kind, "accelerator": {"device_type": "lpu", "count": count}}
        )

    # Five LPUs fit only lpu-node-1: placed first, before the small ones could take any of it.
    await services.deployments.create(user, PROJECT, deployment("llm-big", 5, 1))
    await until(lambda: _status(services, "llm-big", "Ready"), within=30)
    await services.deployments.create(user, PROJECT, deployment("llm-chat", 1, 2))
    await services.deployments.create(user, PROJECT, deployment("llm-huge", 5, 1))
    await services.labs.create(user, PROJECT, lab("notebook", "jupyter", 1))
    await services.labs.create(user, PROJECT, lab("editor", "vscode", 1))
    await services.labs.stop(user, PROJECT, "editor")
    await services.labs.create(user, PROJECT, lab("waiting", "jupyter", 6))
    await until(lambda: _status(services, "llm-huge", "Pending"), within=30)
    # Room to spare (19 LPUs asked for above), so the form's own refusals below stay the ones shown.
    await services.quotas.replace(admin, PROJECT, QuotaSpec(devices={"lpu": 40}, storage="100Gi", pods=30))
    await until(lambda: _quota_counted(services), within=30)


async def _quota_counted(services: Services) -> bool:
    """The dev cluster's quota controller has counted the project's pods into the quota's status."""
    quota = await services.quotas.read(PEOPLE["admin"], PROJECT)
    return [(d.device_type, d.used) for d in quota.devices] == [("lpu", 19)]


async def _status(services: Services, name: str, status: str) -> bool:
    return (await services.deployments.get(PEOPLE["user"], PROJECT, name)).status == status


async def open_as(browser: Browser, who: str, language: str, url: str) -> Page:
    page_context = await browser.new_context(
        locale=LOCALES[language],
        viewport={"width": 1400, "height": 900},
        extra_http_headers={USER_HEADER: who},
    )
    page = await page_context.new_page()
    await page.goto(url)
    return page


async def shot(page: Page, language: str, name: str, *, full: bool = True) -> None:
    """Every state photographed is also read: it must speak the page's language only."""
    await speaks(page, language, f"workloads {name}")
    await browser_shot(page, f"workloads-{language}-{name}", full_page=full)


def t(language: str, key: str, **fields: object) -> str:
    assert language in LOCALES
    chosen: Language = "ko" if language == "ko" else "en"
    return text(chosen, key, **fields)


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
        "ko": f"{LPU_RESOURCE_KEY}이(가) 5개 남은 노드가 없습니다",
        "en": f"no node has 5 free {LPU_RESOURCE_KEY}",
    }
    await expect(table).to_contain_text(short[language])
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
