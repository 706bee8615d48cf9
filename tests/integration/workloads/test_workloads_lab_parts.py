"""A lab's and a deployment's parts are owned by their top object (`ownerReferences` with its uid),
so the cluster's garbage collector removes them with it; and a lab whose top object is gone (a crash
half-way, or a hand) can still be deleted (204, not 404) and made again (201, not 409)."""

from __future__ import annotations

from typing import Any

import httpx

from nufi.workloads.labels import workload_labels
from support.polling import until
from support.world import World, deployment_body, names_in

LAB_PARTS = ("services", "persistentvolumeclaims")


async def _orphan_lab_parts(kube: httpx.AsyncClient, project: str) -> None:
    labels = workload_labels(project, "lab", "lab", "lpu")
    service = {
        "metadata": {"name": "lab", "labels": labels},
        "spec": {"selector": {"nufi.io/workload": "lab"}, "ports": [{"port": 80}]},
    }
    claim = {
        "metadata": {"name": "lab-home", "labels": labels},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    for path, body in (
        (f"/api/v1/namespaces/{project}/services", service),
        (f"/api/v1/namespaces/{project}/persistentvolumeclaims", claim),
    ):
        assert (await kube.post(path, json=body)).status_code == 201


def _lab() -> dict[str, Any]:
    return {
        "name": "lab",
        "kind": "jupyter",
        "accelerator": {"device_type": "lpu", "count": 1},
        "storage_gib": 1,
    }


async def test_a_lab_whose_top_object_is_gone_can_be_deleted(
    nufi: httpx.AsyncClient, kube: httpx.AsyncClient, world: World, project: str
) -> None:
    await _orphan_lab_parts(kube, project)
    gone = await nufi.delete(f"/api/v1/projects/{project}/labs/lab", headers=world.user)
    assert gone.status_code == 204, gone.text
    for plural in LAB_PARTS:
        assert await names_in(kube, f"/api/v1/namespaces/{project}/{plural}") == []


async def test_a_lab_whose_top_object_is_gone_can_be_made_again(
    nufi: httpx.AsyncClient, kube: httpx.AsyncClient, world: World, project: str
) -> None:
    await _orphan_lab_parts(kube, project)
    again = await nufi.post(f"/api/v1/projects/{project}/labs", json=_lab(), headers=world.user)
    assert again.status_code == 201, again.text


async def test_a_lab_s_parts_go_with_its_top_object(
    nufi: httpx.AsyncClient, kube: httpx.AsyncClient, world: World, project: str
) -> None:
    created = await nufi.post(f"/api/v1/projects/{project}/labs", json=_lab(), headers=world.user)
    assert created.status_code == 201, created.text
    sts = (await kube.get(f"/apis/apps/v1/namespaces/{project}/statefulsets/lab")).json()
    for plural, name in (("services", "lab"), ("persistentvolumeclaims", "lab-home")):
        part = (await kube.get(f"/api/v1/namespaces/{project}/{plural}/{name}")).json()
        assert [(r["kind"], r["name"], r["uid"]) for r in part["metadata"]["ownerReferences"]] == [
            ("StatefulSet", "lab", sts["metadata"]["uid"])
        ]
    # Someone deletes the StatefulSet by hand: the garbage collector takes the rest.
    assert (await kube.delete(f"/apis/apps/v1/namespaces/{project}/statefulsets/lab")).status_code == 200

    async def parts_gone() -> bool:
        return all([await names_in(kube, f"/api/v1/namespaces/{project}/{p}") == [] for p in LAB_PARTS])

    await until(parts_gone, within=10)


async def test_a_deployment_s_service_goes_with_it(
    nufi: httpx.AsyncClient, kube: httpx.AsyncClient, world: World, project: str
) -> None:
    base = f"/api/v1/projects/{project}/deployments"
    assert (await nufi.post(base, json=deployment_body(replicas=0), headers=world.user)).status_code == 201
    deployment = (await kube.get(f"/apis/apps/v1/namespaces/{project}/deployments/llm")).json()
    service = (await kube.get(f"/api/v1/namespaces/{project}/services/llm")).json()
    assert service["metadata"]["ownerReferences"][0]["uid"] == deployment["metadata"]["uid"]
    assert (await kube.delete(f"/apis/apps/v1/namespaces/{project}/deployments/llm")).status_code == 200

    async def service_gone() -> bool:
        return await names_in(kube, f"/api/v1/namespaces/{project}/services") == []

    await until(service_gone, within=10)


async def test_a_deployment_s_service_left_alone_is_deleted_and_the_name_made_again(
    nufi: httpx.AsyncClient, kube: httpx.AsyncClient, world: World, project: str
) -> None:
    # A Service of NuFi's with no owner and no Deployment (an older NuFi, a crash before the GC).
    service = {
        "metadata": {"name": "llm", "labels": workload_labels(project, "llm", "deployment", "lpu")},
        "spec": {"selector": {"nufi.io/workload": "llm"}, "ports": [{"port": 8000}]},
    }
    assert (await kube.post(f"/api/v1/namespaces/{project}/services", json=service)).status_code == 201
    base = f"/api/v1/projects/{project}/deployments"
    gone = await nufi.delete(f"{base}/llm", headers=world.user)
    assert gone.status_code == 204, gone.text
    assert await names_in(kube, f"/api/v1/namespaces/{project}/services") == []
    assert (await kube.post(f"/api/v1/namespaces/{project}/services", json=service)).status_code == 201
    again = await nufi.post(base, json=deployment_body(replicas=0), headers=world.user)
    assert again.status_code == 201, again.text
