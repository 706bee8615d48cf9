"""What a crash between an intent and its audit record leaves is settled from the cluster by the
reconciler: a project namespace NuFi made is finished and audited, a project whose namespace never
came leaves no record, and a lab missing a part is undone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from nufi.db import AuditRepository
from nufi.db.tables import IntentRow
from nufi.db.types import utc_now
from nufi.services import Services, build_services
from nufi.workloads.labels import workload_labels
from nufi.workloads.reconcile import Reconciler
from support.world import World, names_in, project_name


@pytest.fixture
async def services(world: World, tmp_path: Path) -> AsyncIterator[Services]:
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}").model_copy(
        update={"thermal_enabled": False, "intent_reconcile_interval_seconds": 3600}
    )
    async with build_services(settings) as built:
        yield built


def _reconciler(services: Services) -> Reconciler:
    return Reconciler(services.projects.recorder, settle_after_seconds=0, interval_seconds=3600)


async def _actions(services: Services, kind: str, target: str) -> list[str]:
    async with services.database.session() as session:
        records = await AuditRepository(session).list(target_kind=kind, target_id=target)
    return [r.action for r in records]


async def _open(services: Services) -> int:
    return len(await services.projects.recorder.store.open_intents())


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
    made = await kube.post(f"/apis/apps/v1/namespaces/{project}/statefulsets", json=_statefulset(project))
    assert made.status_code == 201, made.text
    assert await _reconciler(services).run_once() == 1
    assert await names_in(kube, f"/apis/apps/v1/namespaces/{project}/statefulsets") == []
    assert await _actions(services, "lab", f"{project}/lab") == []
    listed = await nufi.get(f"/api/v1/projects/{project}/labs", headers=world.user)
    assert listed.json()["items"] == []


async def test_a_later_change_of_the_same_lab_is_left_to_its_request(
    services: Services, kube: httpx.AsyncClient, project: str
) -> None:
    store = services.projects.recorder.store
    target = f"{project}/lab"
    old = await store.open(
        actor="user", action="lab.create", target_kind="lab", target_id=target, holder="gone"
    )
    async with services.database.transaction() as session:
        await session.execute(
            update(IntentRow).where(IntentRow.id == old.id).values(at=utc_now() - timedelta(hours=1))
        )
    # A new request for the same lab is half-way: its StatefulSet is written, its Service not yet.
    await store.open(actor="user", action="lab.create", target_kind="lab", target_id=target, holder="live")
    made = await kube.post(f"/apis/apps/v1/namespaces/{project}/statefulsets", json=_statefulset(project))
    assert made.status_code == 201, made.text
    reconciler = Reconciler(services.projects.recorder, settle_after_seconds=60, interval_seconds=3600)
    assert await reconciler.run_once() == 1
    assert [i.holder for i in await store.open_intents()] == ["live"]
    assert await names_in(kube, f"/apis/apps/v1/namespaces/{project}/statefulsets") == ["lab"]


def _statefulset(project: str) -> dict[str, Any]:
    return {
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
