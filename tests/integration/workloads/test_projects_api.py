"""Projects through the REST API: a labelled namespace with its members, audited; the dry run lists
what a delete takes with it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
from kubernetes_asyncio import client as kube

from support.kube import api_client
from support.polling import until
from support.world import World, create_project, deployment_body, project_name, serve


async def _namespace(world: World, name: str) -> dict[str, object] | None:
    async with api_client(world.cluster.kubeconfig) as api:
        try:
            ns = await kube.CoreV1Api(api).read_namespace(name)
        except kube.ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return {"labels": ns.metadata.labels or {}, "annotations": ns.metadata.annotations or {}}


async def _audit(nufi: httpx.AsyncClient, world: World, name: str) -> list[dict[str, object]]:
    response = await nufi.get("/api/v1/admin/audit", params={"target_id": name}, headers=world.admin)
    assert response.status_code == 200
    items: list[dict[str, object]] = response.json()["items"]
    return [item for item in items if item["target_kind"] == "project"]


async def test_a_project_is_a_labelled_namespace_with_sorted_members(
    nufi: httpx.AsyncClient, world: World
) -> None:
    name = project_name()
    response = await nufi.post(
        "/api/v1/admin/projects", json={"name": name, "members": ["user", "bob", "user"]}, headers=world.admin
    )
    assert response.status_code == 201, response.text
    assert response.json() == {"name": name, "namespace": name, "members": ["bob", "user"]}
    assert response.headers["location"] == f"/api/v1/projects/{name}"
    try:
        namespace = await _namespace(world, name)
        assert namespace is not None
        labels = namespace["labels"]
        assert labels["nufi.io/project"] == name and labels["app.kubernetes.io/managed-by"] == "nufi"  # type: ignore[index]
        assert json.loads(namespace["annotations"]["nufi.io/members"]) == ["bob", "user"]  # type: ignore[index]
        mine = await nufi.get("/api/v1/projects", headers=world.user)
        assert name in [p["name"] for p in mine.json()["items"]]
        one = await nufi.get(f"/api/v1/projects/{name}", headers=world.user)
        assert one.status_code == 200 and one.json()["members"] == ["bob", "user"]
        (record,) = await _audit(nufi, world, name)
        assert record["action"] == "project.create" and record["actor"] == "admin"
        assert record["after"] == {"name": name, "members": ["bob", "user"]}
    finally:
        await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


async def test_an_existing_namespace_is_a_conflict_project_or_not(
    nufi: httpx.AsyncClient, world: World
) -> None:
    name = project_name()
    async with api_client(world.cluster.kubeconfig) as api:
        await kube.CoreV1Api(api).create_namespace({"metadata": {"name": name}})
        try:
            plain = await nufi.post("/api/v1/admin/projects", json={"name": name}, headers=world.admin)
            assert plain.status_code == 409 and plain.json()["field"] == "name"
            assert plain.headers["content-type"].startswith("application/problem+json")
            # A namespace that is not a project is no project: not listed, not deletable as one.
            listed = await nufi.get("/api/v1/projects", headers=world.admin)
            assert name not in [p["name"] for p in listed.json()["items"]]
            gone = await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)
            assert gone.status_code == 404
            assert await _namespace(world, name) is not None
        finally:
            await kube.CoreV1Api(api).delete_namespace(name)
    await create_project(nufi, world, other := project_name(), [])
    try:
        again = await nufi.post("/api/v1/admin/projects", json={"name": other}, headers=world.admin)
        assert again.status_code == 409
    finally:
        await nufi.delete(f"/api/v1/admin/projects/{other}", headers=world.admin)


async def test_bad_names_and_members_are_refused_naming_the_field(
    nufi: httpx.AsyncClient, world: World
) -> None:
    cases = [
        ({"name": "Team_A"}, "name"),
        ({"name": "x" * 64}, "name"),
        ({"name": "-a"}, "name"),
        ({"name": "ok-name", "members": ["fine", "has space"]}, "members.1"),
        ({"name": "ok-name", "members": [""]}, "members.0"),
        ({"name": "ok-name", "extra": 1}, "extra"),
    ]
    for body, field in cases:
        response = await nufi.post("/api/v1/admin/projects", json=body, headers=world.admin)
        assert response.status_code == 422, body
        assert response.json()["field"] == field, response.json()
    assert await _namespace(world, "ok-name") is None


async def test_users_cannot_manage_projects(nufi: httpx.AsyncClient, world: World, project: str) -> None:
    calls = [
        ("POST", "/api/v1/admin/projects", {"name": project_name()}),
        ("DELETE", f"/api/v1/admin/projects/{project}", None),
        ("PUT", f"/api/v1/admin/projects/{project}/members/user2", None),
        ("DELETE", f"/api/v1/admin/projects/{project}/members/user", None),
    ]
    for method, path, body in calls:
        response = await nufi.request(method, path, json=body, headers=world.user)
        assert response.status_code == 403, (method, path)
    assert (await nufi.get(f"/api/v1/projects/{project}", headers=world.user)).json()["members"] == ["user"]


async def test_members_are_added_and_removed_idempotently_and_audited(
    nufi: httpx.AsyncClient, world: World, foreign_project: str
) -> None:
    path = f"/api/v1/admin/projects/{foreign_project}/members/user"
    assert (await nufi.get(f"/api/v1/projects/{foreign_project}", headers=world.user)).status_code == 403
    for _ in range(2):
        added = await nufi.put(path, headers=world.admin)
        assert added.status_code == 200 and added.json()["members"] == ["someone-else", "user"]
    assert (await nufi.get(f"/api/v1/projects/{foreign_project}", headers=world.user)).status_code == 200
    for _ in range(2):
        removed = await nufi.delete(path, headers=world.admin)
        assert removed.status_code == 200 and removed.json()["members"] == ["someone-else"]
    assert (await nufi.get(f"/api/v1/projects/{foreign_project}", headers=world.user)).status_code == 403
    actions = [r["action"] for r in await _audit(nufi, world, foreign_project)]
    # One record per change, newest first; the repeated calls changed nothing.
    assert actions == ["project.member.remove", "project.member.add", "project.create"]
    absent = await nufi.put(f"/api/v1/admin/projects/{project_name()}/members/user", headers=world.admin)
    assert absent.status_code == 404


async def test_concurrent_member_changes_all_land(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:

    names = [f"member-{i}" for i in range(8)]
    answers = await asyncio.gather(
        *(nufi.put(f"/api/v1/admin/projects/{project}/members/{n}", headers=world.admin) for n in names)
    )
    assert [a.status_code for a in answers] == [200] * len(names)
    final = await nufi.get(f"/api/v1/projects/{project}", headers=world.admin)
    assert final.json()["members"] == sorted([*names, "user"])


async def test_dry_run_lists_what_goes_and_delete_takes_it(nufi: httpx.AsyncClient, world: World) -> None:
    name = project_name()
    await create_project(nufi, world, name, ["user"])
    created = await nufi.post(
        f"/api/v1/projects/{name}/deployments", json=deployment_body("llm", replicas=1), headers=world.user
    )
    assert created.status_code == 201, created.text

    async def pod_listed() -> list[dict[str, str]] | None:
        response = await nufi.delete(
            f"/api/v1/admin/projects/{name}", params={"dry_run": "true"}, headers=world.admin
        )
        assert response.status_code == 200
        objects: list[dict[str, str]] = response.json()["objects"]
        return objects if any(o["kind"] == "Pod" for o in objects) else None

    objects = await until(pod_listed, within=20)
    assert objects is not None
    kinds = sorted({o["kind"] for o in objects})
    assert kinds == ["Deployment", "Pod", "Service"]
    assert {"kind": "Deployment", "name": "llm"} in objects and {"kind": "Service", "name": "llm"} in objects
    assert await _namespace(world, name) is not None
    deleted = await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)
    assert deleted.status_code == 200 and deleted.json()["dry_run"] is False
    assert await _namespace(world, name) is None
    records = await _audit(nufi, world, name)
    assert records[0]["action"] == "project.delete"
    assert "Deployment/llm" in records[0]["details"]["objects"]  # type: ignore[index]


async def _role_bindings(world: World, namespace: str) -> list[kube.V1RoleBinding]:
    async with api_client(world.cluster.kubeconfig) as api:
        listed = await kube.RbacAuthorizationV1Api(api).list_namespaced_role_binding(namespace)
    return list(listed.items)


async def test_nufi_grants_its_own_service_account_the_workload_role_in_each_project(
    world: World, tmp_path: Path
) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"
    settings = world.settings(database).model_copy(update={"project_service_account": "nufi-system/nufi"})
    name = project_name()
    async with serve(settings) as nufi:
        created = await nufi.post("/api/v1/admin/projects", json={"name": name}, headers=world.admin)
        assert created.status_code == 201, created.text
        try:
            (binding,) = await _role_bindings(world, name)
            assert binding.metadata.name == "nufi-workload-manager"
            assert (binding.role_ref.kind, binding.role_ref.name) == ("ClusterRole", "nufi-workload-manager")
            (subject,) = binding.subjects
            assert (subject.kind, subject.namespace, subject.name) == (
                "ServiceAccount",
                "nufi-system",
                "nufi",
            )
        finally:
            await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


async def test_a_refused_role_binding_leaves_no_namespace_behind(world: World, tmp_path: Path) -> None:
    # A role name Kubernetes refuses as an object name ('%' is not allowed in RBAC names): the binding's
    # create fails after the namespace's.
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}").model_copy(
        update={"project_service_account": "nufi-system/nufi", "project_role": "bad%role"}
    )
    name = project_name()
    async with serve(settings) as nufi:
        refused = await nufi.post("/api/v1/admin/projects", json={"name": name}, headers=world.admin)
        assert refused.status_code == 422, refused.text
        assert await _namespace(world, name) is None
        assert (await nufi.get(f"/api/v1/projects/{name}", headers=world.admin)).status_code == 404


async def test_with_a_kubeconfig_and_no_service_account_configured_nothing_is_bound(
    nufi: httpx.AsyncClient, world: World
) -> None:
    name = project_name()
    await create_project(nufi, world, name, [])
    try:
        assert await _role_bindings(world, name) == []
    finally:
        await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)
