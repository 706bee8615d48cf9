"""A project's quota on storage and pods holds like its quota on devices, against the dev cluster (which
enforces ResourceQuotas as kube-apiserver does): a lab whose home volume, or a deployment whose
replicas, the quota has no room for is a 422 `quota.exceeded` naming the field and the room left,
before anything is written; and a claim only the cluster's quota admission refuses (a quota NuFi does
not count up front) is the same 422, never a 503 blaming NuFi's credentials, with nothing left
behind."""

from __future__ import annotations

from typing import Any

import httpx

from support.world import World, deployment_body


async def _put_quota(nufi: httpx.AsyncClient, world: World, project: str, body: dict[str, Any]) -> None:
    put = await nufi.put(f"/api/v1/admin/projects/{project}/quotas", json=body, headers=world.admin)
    assert put.status_code == 200, put.text


def _lab(name: str, storage_gib: int) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "jupyter",
        "accelerator": {"device_type": "lpu", "count": 1},
        "storage_gib": storage_gib,
    }


async def _nothing_of(kube: httpx.AsyncClient, project: str, name: str) -> None:
    for path in (
        f"/apis/apps/v1/namespaces/{project}/statefulsets/{name}",
        f"/api/v1/namespaces/{project}/services/{name}",
        f"/api/v1/namespaces/{project}/persistentvolumeclaims/{name}-home",
    ):
        assert (await kube.get(path)).status_code == 404, path


def _no_room(response: httpx.Response, field: str | None, resource: str) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem: dict[str, Any] = response.json()
    assert (problem["code"], problem.get("field")) == ("quota.exceeded", field), problem
    assert problem["params"]["resource_key"] == resource, problem
    assert "retry-after" not in response.headers
    return problem


async def test_a_lab_beyond_the_storage_quota_is_refused_before_anything_is_written(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    await _put_quota(nufi, world, project, {"storage": "10Gi", "pods": 10})
    base = f"/api/v1/projects/{project}/labs"
    for name in ("one", "two"):
        created = await nufi.post(base, json=_lab(name, 4), headers=world.user)
        assert created.status_code == 201, created.text

    refused = await nufi.post(base, json=_lab("three", 4), headers=world.user)
    problem = _no_room(refused, "storage_gib", "storage")
    assert (problem["params"]["hard"], problem["params"]["used"]) == ("10Gi", "8Gi")
    assert (problem["params"]["requested"], problem["params"]["room"]) == ("4Gi", "2Gi")
    assert (
        "so only 2Gi more can be used" in problem["detail"] and "nufi-accelerators" not in problem["detail"]
    )
    await _nothing_of(kube, project, "three")

    korean = await nufi.post(base, json=_lab("three", 4), headers=world.user | {"Accept-Language": "ko"})
    assert korean.status_code == 422 and "스토리지 4Gi를 더 받을 여유가 없습니다" in korean.json()["detail"]
    # What fits is still taken.
    fits = await nufi.post(base, json=_lab("three", 2), headers=world.user)
    assert fits.status_code == 201, fits.text


async def test_a_claim_only_admission_refuses_is_a_422_and_the_lab_is_undone(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    # A quota on the number of claims, written past NuFi: NuFi does not count it up front, so only the
    # API server's quota admission refuses the lab's claim, after its StatefulSet and Service.
    written = await kube.post(
        f"/api/v1/namespaces/{project}/resourcequotas",
        json={"metadata": {"name": "claims"}, "spec": {"hard": {"persistentvolumeclaims": "0"}}},
    )
    assert written.status_code == 201, written.text
    refused = await nufi.post(f"/api/v1/projects/{project}/labs", json=_lab("lab", 1), headers=world.user)
    problem = _no_room(refused, "storage_gib", "persistentvolumeclaims")
    assert (problem["params"]["quota"], problem["params"]["project"]) == ("claims", project)
    assert problem["type"] == "validation-failed"
    await _nothing_of(kube, project, "lab")
    listed = await nufi.get(f"/api/v1/projects/{project}/labs", headers=world.user)
    assert listed.status_code == 200 and listed.json()["items"] == []


async def test_replicas_beyond_the_pods_quota_are_refused_naming_replicas(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    await _put_quota(nufi, world, project, {"pods": 2})
    base = f"/api/v1/projects/{project}/deployments"
    refused = await nufi.post(base, json=deployment_body(replicas=3), headers=world.user)
    problem = _no_room(refused, "replicas", "pods")
    assert (problem["params"]["hard"], problem["params"]["requested"], problem["params"]["room"]) == (2, 3, 2)
    assert (await kube.get(f"/apis/apps/v1/namespaces/{project}/deployments/llm")).status_code == 404

    created = await nufi.post(base, json=deployment_body(replicas=1), headers=world.user)
    assert created.status_code == 201, created.text
    # Three more pods than the one it has never fit, however far the one has got.
    scaled = await nufi.patch(f"{base}/llm", json={"replicas": 4}, headers=world.user)
    _no_room(scaled, "replicas", "pods")
    kept = await kube.get(f"/apis/apps/v1/namespaces/{project}/deployments/llm")
    assert kept.json()["spec"]["replicas"] == 1
