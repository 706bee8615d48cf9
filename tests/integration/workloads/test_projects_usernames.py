"""Member usernames through the REST API: lower-case ASCII in Keycloak's characters, so that no member
list holds a capitalised name nobody can sign in as, or a look-alike of another member. A name
stored before this check can still be removed."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import pytest
from kubernetes_asyncio import client as kube

from support.kube import api_client
from support.polling import until
from support.world import World, project_name

CYRILLIC_ADMIN = "\u0430dmin"  # the first letter is Cyrillic


@pytest.mark.parametrize(
    ("members", "field", "says"),
    [
        (["user", "USER"], "members.1", "lower-case"),
        (["Kim.Jiwoo"], "members.0", "'kim.jiwoo'"),
        (["user", CYRILLIC_ADMIN], "members.1", "ASCII"),
        (["\uff41lice"], "members.0", "ASCII"),
    ],
)
async def test_a_project_with_a_capitalised_or_look_alike_member_is_refused(
    nufi: httpx.AsyncClient, world: World, members: list[str], field: str, says: str
) -> None:
    body = {"name": project_name(), "members": members}
    response = await nufi.post("/api/v1/admin/projects", json=body, headers=world.admin)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["field"] == field
    assert says in problem["detail"]


@pytest.mark.parametrize("username", ["USER", CYRILLIC_ADMIN, "us er"])
async def test_adding_such_a_member_is_refused(
    nufi: httpx.AsyncClient, world: World, project: str, username: str
) -> None:
    path = f"/api/v1/admin/projects/{project}/members/{quote(username)}"
    response = await nufi.put(path, headers=world.admin)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "username"
    members = (await nufi.get(f"/api/v1/projects/{project}", headers=world.admin)).json()["members"]
    assert username not in members


async def test_a_member_stored_before_the_check_can_still_be_removed(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    async with api_client(world.cluster.kubeconfig) as api:
        patch = {"metadata": {"annotations": {"nufi.io/members": json.dumps(["USER", "user"])}}}
        await kube.CoreV1Api(api).patch_namespace(project, patch)

    async def listed() -> bool:
        answer = await nufi.get(f"/api/v1/projects/{project}", headers=world.admin)
        return "USER" in answer.json()["members"]

    await until(listed)
    response = await nufi.delete(f"/api/v1/admin/projects/{project}/members/USER", headers=world.admin)
    assert response.status_code == 200, response.text
    assert response.json()["members"] == ["user"]
    async with api_client(world.cluster.kubeconfig) as api:
        namespace = await kube.CoreV1Api(api).read_namespace(project)
    assert json.loads(namespace.metadata.annotations["nufi.io/members"]) == ["user"]
