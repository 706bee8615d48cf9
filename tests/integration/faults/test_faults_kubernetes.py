"""The Kubernetes API misbehaving, between NuFi and the real dev cluster: throttling (429 with
Retry-After) is waited out when it fits the time bound and passed on as a 503 with the same
Retry-After when it does not; a 500, a late answer or a stopped server is a 503 problem naming
Kubernetes; a 409 is the caller's conflict; a failure half-way through a deployment leaves nothing
behind; and every case recovers without restarting NuFi."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from nufi.config import Settings
from support.http_fault import Fault, HttpFault, requests_to, through
from support.world import (
    World,
    create_project,
    deployment_body,
    project_name,
    register_lpu,
    serve,
)

TIMEOUT_SECONDS = 2.0


@dataclass
class Faulty:
    nufi: httpx.AsyncClient
    proxy: HttpFault
    project: str
    world: World

    @property
    def deployments(self) -> str:
        return f"/api/v1/projects/{self.project}/deployments"

    async def list(self) -> httpx.Response:
        return await self.nufi.get(self.deployments, headers=self.world.user)


@pytest.fixture
async def faulty(world: World, tmp_path: Path) -> AsyncIterator[Faulty]:
    proxy = await HttpFault(world.cluster.url).start()
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}").model_copy(
        update={
            "kubeconfig": through(proxy, Path(world.cluster.kubeconfig), tmp_path / "kubeconfig"),
            "kube_timeout_seconds": TIMEOUT_SECONDS,
            "thermal_enabled": False,
        }
    )
    assert isinstance(settings, Settings)
    project = project_name()
    try:
        async with serve(settings) as nufi:
            await register_lpu(nufi, world)
            await create_project(nufi, world, project, ["user"])
            faulty = Faulty(nufi, proxy, project, world)
            assert (await faulty.list()).status_code == 200
            yield faulty
            proxy.set(None)
            await nufi.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)
    finally:
        await proxy.close()


def assert_kubernetes_unavailable(response: httpx.Response, retry_after: str = "5") -> dict[str, object]:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["retry-after"] == retry_after
    body: dict[str, object] = response.json()
    assert body["dependency"] == "kubernetes", body
    return body


async def test_throttling_within_the_time_bound_is_waited_out(faulty: Faulty) -> None:
    faulty.proxy.set(Fault(429, {"Retry-After": "1"}, times=1, matches=requests_to("GET", "/deployments")))
    answer = await faulty.list()
    assert answer.status_code == 200, answer.text
    assert faulty.proxy.statuses("GET", "/deployments")[-2:] == [429, 200]


async def test_throttling_longer_than_the_bound_is_a_503_with_its_retry_after(
    faulty: Faulty,
) -> None:
    # Written in lower case, as a proxy may: header names are case-insensitive.
    faulty.proxy.set(Fault(429, {"retry-after": "30"}, matches=requests_to("GET", "/deployments")))
    before = len(faulty.proxy.statuses("GET", "/deployments"))
    body = assert_kubernetes_unavailable(await faulty.list(), retry_after="30")
    assert "429" in str(body["detail"])
    # Not slept through, not hammered: one request.
    assert len(faulty.proxy.statuses("GET", "/deployments")) == before + 1
    faulty.proxy.set(None)
    assert (await faulty.list()).status_code == 200


async def test_a_server_error_is_a_503_and_passes_when_the_server_recovers(faulty: Faulty) -> None:
    faulty.proxy.set(Fault(500, matches=requests_to("GET", "/deployments")))
    body = assert_kubernetes_unavailable(await faulty.list())
    assert "HTTP 500" in str(body["detail"])
    faulty.proxy.set(None)
    assert (await faulty.list()).status_code == 200


async def test_an_answer_later_than_the_bound_is_a_503_naming_the_setting(faulty: Faulty) -> None:
    faulty.proxy.set(Fault(delay=TIMEOUT_SECONDS + 3, matches=requests_to("GET", "/deployments")))
    body = assert_kubernetes_unavailable(await faulty.list())
    assert "NUFI_KUBE_TIMEOUT_SECONDS" in str(body["detail"])
    faulty.proxy.set(None)
    assert (await faulty.list()).status_code == 200


async def test_a_stopped_api_server_is_a_503_and_nufi_serves_again_once_it_is_back(faulty: Faulty) -> None:
    await faulty.proxy.down()
    assert_kubernetes_unavailable(await faulty.list())
    await faulty.proxy.up()
    assert (await faulty.list()).status_code == 200


async def test_a_conflict_from_kubernetes_is_the_caller_s_409(faulty: Faulty) -> None:
    faulty.proxy.set(Fault(409, matches=requests_to("POST", "/deployments")))
    answer = await faulty.nufi.post(faulty.deployments, json=deployment_body(), headers=faulty.world.user)
    assert answer.status_code == 409, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["field"] == "name"


async def test_a_failure_half_way_through_a_deployment_leaves_nothing_behind(faulty: Faulty) -> None:
    # The Deployment is created, then its Service is refused: the Deployment is taken back.
    faulty.proxy.set(Fault(500, matches=requests_to("POST", "/services")))
    answer = await faulty.nufi.post(faulty.deployments, json=deployment_body(), headers=faulty.world.user)
    assert_kubernetes_unavailable(answer)
    assert faulty.proxy.statuses("POST", "/deployments") == [201]
    faulty.proxy.set(None)
    listed = await faulty.list()
    assert listed.status_code == 200 and listed.json()["items"] == [], listed.text
    # And the same request succeeds now.
    again = await faulty.nufi.post(faulty.deployments, json=deployment_body(), headers=faulty.world.user)
    assert again.status_code == 201, again.text
