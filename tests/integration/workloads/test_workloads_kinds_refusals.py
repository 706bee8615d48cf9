"""A deployment and a lab are kinds of one workload: refused alike, they are refused with the same
problem. A name already taken is one `workload.name_taken` naming the kind; a quota that only the
cluster's admission enforces (written past NuFi, so not counted up front) refuses either kind's
Service with one 422 `quota.exceeded`, and nothing of the refused workload is left behind."""

from __future__ import annotations

from typing import Any

import httpx

from support.world import World, deployment_body

LAB = {"name": "lab", "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}, "storage_gib": 1}


def _bodies() -> dict[str, dict[str, Any]]:
    return {"deployments": deployment_body(replicas=0), "labs": LAB}


async def test_a_name_taken_is_the_same_problem_for_a_deployment_and_a_lab(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    problems: dict[str, dict[str, Any]] = {}
    for plural, body in _bodies().items():
        path = f"/api/v1/projects/{project}/{plural}"
        assert (await nufi.post(path, json=body, headers=world.user)).status_code == 201
        taken = await nufi.post(path, json=body, headers=world.user)
        assert taken.status_code == 409, taken.text
        problems[plural] = taken.json()
    deployment, lab = problems["deployments"], problems["labs"]
    assert deployment["code"] == lab["code"] == "workload.name_taken"
    assert deployment["type"] == lab["type"] == "conflict"
    assert deployment["field"] == lab["field"] == "name"
    assert deployment["params"]["kind"]["code"] == "workload.kind_named.deployment"
    assert lab["params"]["kind"]["code"] == "workload.kind_named.lab"
    assert lab["detail"] == f"a lab named 'lab' already exists in project '{project}'; choose another name"


async def test_a_quota_only_admission_enforces_refuses_both_kinds_with_the_same_problem(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    written = await kube.post(
        f"/api/v1/namespaces/{project}/resourcequotas",
        json={"metadata": {"name": "no-services"}, "spec": {"hard": {"services": "0"}}},
    )
    assert written.status_code == 201, written.text
    problems: dict[str, dict[str, Any]] = {}
    for plural, body in _bodies().items():
        refused = await nufi.post(f"/api/v1/projects/{project}/{plural}", json=body, headers=world.user)
        assert refused.status_code == 422, refused.text
        problems[plural] = refused.json()
        listed = await nufi.get(f"/api/v1/projects/{project}/{plural}", headers=world.user)
        assert listed.status_code == 200 and listed.json()["items"] == []
    deployment, lab = problems["deployments"], problems["labs"]
    assert deployment["code"] == lab["code"] == "quota.exceeded"
    assert deployment["type"] == lab["type"] == "validation-failed"
    for problem in (deployment, lab):
        assert problem["params"]["quota"] == "no-services"
        assert problem["params"]["resource_key"] == "services"
