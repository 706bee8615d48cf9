"""What a crash between an intent and its audit record leaves is settled from the cluster: a project
namespace is finished and audited, a lab missing a part is undone; a lab's and a deployment's parts are
owned by their top object, so the cluster's garbage collector removes them with it; and a lab whose top
object is gone can still be deleted (204, not 404) and made again (201, not 409)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi.db import AuditRepository
from nufi.services import Services, build_services
from nufi.workloads.labels import workload_labels
from nufi.workloads.reconcile import Reconciler
from support.polling import until

from .workloads_world import World, deployment_body, project_name

LAB_PARTS = ("services", "persistentvolumeclaims")


@pytest.fixture
async def services(world: World, tmp_path: Path) -> AsyncIterator[Services]:
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}").model_copy(
        update={"thermal_enabled": False, "intent_reconcile_interval_seconds": 3600}
    )
    async with build_services(settings) as built:
        yield built


@pytest.fixture
async def kube(world: World) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        base_url=world.cluster.url, headers={"Authorization": "Bearer nufi-dev-token"}, timeout=10
    ) as client:
        yield client


def _reconciler(services: Services) -> Reconciler:
    return Reconciler(services.projects.recorder, settle_after_seconds=0, interval_seconds=3600)


async def _actions(services: Services, kind: str, target: str) -> list[str]:
    async with services.database.session() as session:
        records = await AuditRepository(session).list(target_kind=kind, target_id=target)
    return [r.action for r in records]


async def _open(services: Services) -> int:
    return len(await services.projects.recorder.store.open_intents())


async def _names(kube: httpx.AsyncClient, path: str) -> list[str]:
    answer = await kube.get(path)
    if answer.status_code == 404:
        return []
    answer.raise_for_status()
    return sorted(item["metadata"]["name"] for item in answer.json()["items"])


async def test_a_project_namespace_left_without_its_record_is_finished_and_audited(
    services: Services, kube: httpx.AsyncClient
) -> None:
    name = project_name()
    # The crash came after the namespace was created and before the record was written.
    await services.projects.recorder.store.open(
        actor="admin",
        action="project.create",
        target_kind="project",
        target_id=name,
        holder="a-replica-that-died",
        after={"name": name, "members": ["user"]},
    )
    labels = {"nufi.io/project": name, "app.kubernetes.io/managed-by": "nufi"}
    body = {"metadata": {"name": name, "labels": labels, "annotations": {"nufi.io/members": '["user"]'}}}
    assert (await kube.post("/api/v1/namespaces", json=body)).status_code == 201
    try:
        assert await _reconciler(services).run_once() == 1
        assert await _actions(services, "project", name) == ["project.create"]
        assert await _open(services) == 0
    finally:
        await kube.delete(f"/api/v1/namespaces/{name}")


async def test_a_project_whose_namespace_never_came_is_no_record(services: Services) -> None:
    name = project_name()
    await services.projects.recorder.store.open(
        actor="admin", action="project.create", target_kind="project", target_id=name, holder="gone"
    )
    assert await _reconciler(services).run_once() == 1
    assert await _actions(services, "project", name) == []
    assert await _open(services) == 0


async def test_a_lab_left_half_made_is_undone(
    nufi: httpx.AsyncClient, services: Services, kube: httpx.AsyncClient, world: World, project: str
) -> None:
    await services.projects.recorder.store.open(
        actor="user", action="lab.create", target_kind="lab", target_id=f"{project}/lab", holder="gone"
    )
    # The StatefulSet was written, then the process died: no Service, no claim.
    sts = {
        "metadata": {"name": "lab", "labels": workload_labels(project, "lab", "lab", "lpu")},
        "spec": {
            "replicas": 0,
            "serviceName": "lab",
            "selector": {"matchLabels": {"nufi.io/workload": "lab"}},
            "template": {
                "metadata": {"labels": {"nufi.io/workload": "lab"}},
                "spec": {"containers": [{"name": "lab", "image": "jupyter"}]},
            },
        },
    }
    made = await kube.post(f"/apis/apps/v1/namespaces/{project}/statefulsets", json=sts)
    assert made.status_code == 201, made.text
    assert await _reconciler(services).run_once() == 1
    assert await _names(kube, f"/apis/apps/v1/namespaces/{project}/statefulsets") == []
    assert await _actions(services, "lab", f"{project}/lab") == []
    listed = await nufi.get(f"/api/v1/projects/{project}/labs", headers=world.user)
    assert listed.json()["items"] == []


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
        assert await _names(kube, f"/api/v1/namespaces/{project}/{plural}") == []


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
        return all([await _names(kube, f"/api/v1/namespaces/{project}/{p}") == [] for p in LAB_PARTS])

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
        return await _names(kube, f"/api/v1/namespaces/{project}/services") == []

    await until(service_gone, within=10)
