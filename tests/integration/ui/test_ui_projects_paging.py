"""Admin → Projects with many projects: a page of them at a time, their quotas read in one list across
the cluster, counted at a proxy in front of a dev cluster of the test's own (130 projects would crowd
the run's cluster)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from nicegui import ui
from nicegui.testing import User

from nufi.devices.spec import DeviceTypeCreate
from nufi.workloads.quotas.room import QUOTA_NAME, QuotaSpec
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import DEV_HEADERS, dev_cluster
from support.http_fault import HttpFault, through
from support.lpu_type import lpu_type

from .people import PEOPLE
from .wizard_world import as_, attached_services, dashboard, dashboard_env, node_layout, shown

ADMIN = PEOPLE["admin"]
PROJECTS = [f"pp-{number:03d}" for number in range(130)]
QUOTA_PATH = "/resourcequotas"


@pytest.fixture(scope="module")
def many_projects() -> Iterator[DevClusterProcess]:
    """A cluster of its own holding 130 projects (namespaces labelled as NuFi labels its projects)."""
    with dev_cluster(node_layout({"cpu-node": {}}), prefix="pages-") as cluster:
        with httpx.Client(base_url=cluster.url, headers=DEV_HEADERS, timeout=30) as kube:
            for name in PROJECTS:
                body = {"metadata": {"name": name, "labels": {"nufi.io/project": name}}}
                assert kube.post("/api/v1/namespaces", json=body).status_code == 201
        yield cluster


@pytest.fixture
async def proxy(many_projects: DevClusterProcess) -> AsyncIterator[HttpFault]:
    started = await HttpFault(many_projects.url).start()
    try:
        yield started
    finally:
        await started.close()


@pytest.fixture
async def admin_page(
    many_projects: DevClusterProcess, proxy: HttpFault, tmp_path: Path
) -> AsyncIterator[User]:
    kubeconfig = through(proxy, many_projects.kubeconfig, tmp_path / "kubeconfig")
    async with dashboard(dashboard_env(tmp_path, kubeconfig=kubeconfig)) as user:
        services = attached_services()
        await services.catalog.create(ADMIN, DeviceTypeCreate.model_validate(lpu_type()), force=True)
        # One on the first page and one on the second, each under its own project's card.
        await services.quotas.replace(ADMIN, PROJECTS[1], QuotaSpec(devices={"lpu": 3}))
        await services.quotas.replace(ADMIN, PROJECTS[21], QuotaSpec(devices={"lpu": 5}))
        # A new type makes the quotas follow it, project by project, in the background: not the page.
        await services.events.wait_following()
        yield user


def quota_reads(proxy: HttpFault) -> list[str]:
    return [path for method, path, _ in proxy.seen if method == "GET" and QUOTA_PATH in path]


def namespace_reads(proxy: HttpFault) -> list[str]:
    return [path for method, path, _ in proxy.seen if method == "GET" and "/namespaces/pp-" in path]


def shown_projects(user: User) -> list[str]:
    """The projects whose cards the page shows, by the cards' markers."""
    with user:
        markers = [marker for card in user.find(kind=ui.card).elements for marker in card._markers]
    return sorted(m.removeprefix("project-") for m in markers if m.startswith("project-pp-"))


async def test_a_page_of_many_projects_reads_their_quotas_in_one_list(
    admin_page: User, proxy: HttpFault
) -> None:
    proxy.seen.clear()
    await as_(admin_page, "admin", "en").open("/admin/projects")
    await admin_page.should_see(marker=f"quota-{PROJECTS[1]}-usage-devices-lpu", retries=200)

    assert shown(admin_page, "projects-page") == "Projects 1 to 20 of 130"
    assert shown_projects(admin_page) == PROJECTS[:20]
    assert "3" in shown(admin_page, f"quota-{PROJECTS[1]}-usage-devices-lpu")
    (listed,) = quota_reads(proxy)
    assert listed.startswith(f"/api/v1{QUOTA_PATH}?")
    assert f"metadata.name%3D{QUOTA_NAME}" in listed or f"metadata.name={QUOTA_NAME}" in listed
    assert namespace_reads(proxy) == []

    with admin_page:
        (pagination,) = admin_page.find(marker="projects-pagination").elements
        assert isinstance(pagination, ui.pagination)
        assert (pagination.min, pagination.max) == (1, 7)
        pagination.set_value(2)
    await admin_page.should_see(marker=f"quota-{PROJECTS[21]}-usage-devices-lpu", retries=200)
    assert shown(admin_page, "projects-page") == "Projects 21 to 40 of 130"
    assert shown_projects(admin_page) == PROJECTS[20:40]
    assert "5" in shown(admin_page, f"quota-{PROJECTS[21]}-usage-devices-lpu")
    assert len(quota_reads(proxy)) == 2
    assert namespace_reads(proxy) == []


async def test_the_last_page_in_korean_and_a_page_past_it_shows_the_last(admin_page: User) -> None:
    await as_(admin_page, "admin", "ko").open("/admin/projects?page=9")
    await admin_page.should_see(marker=f"project-{PROJECTS[-1]}", retries=200)
    assert shown(admin_page, "projects-page") == "프로젝트 130개 중 121~130번째"
    assert shown_projects(admin_page) == PROJECTS[120:]
