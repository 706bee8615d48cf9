"""Members' actions are audited as admins' are: creating, scaling and deleting a deployment, creating,
stopping, starting and deleting a lab, and setting or removing a deployment's thermal override each
leave a record (who, what, which object, before and after) in the admin audit log. Saving what is
already there leaves none, and every field the records hold has a label on the audit page."""

from __future__ import annotations

from typing import Any

import httpx

from support.audit_words import unworded
from support.world import World, deployment_body


def _lab(name: str = "lab") -> dict[str, Any]:
    return {
        "name": name,
        "kind": "jupyter",
        "accelerator": {"device_type": "lpu", "count": 1},
        "storage_gib": 1,
    }


async def _records(nufi: httpx.AsyncClient, world: World, kind: str, target: str) -> list[dict[str, Any]]:
    answer = await nufi.get(
        "/api/v1/admin/audit", params={"target_kind": kind, "target_id": target}, headers=world.admin
    )
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return list(reversed(items))  # oldest first


async def test_deployment_changes_are_audited(nufi: httpx.AsyncClient, world: World, project: str) -> None:
    base = f"/api/v1/projects/{project}/deployments"
    assert (await nufi.post(base, json=deployment_body(replicas=1), headers=world.user)).status_code == 201
    assert (await nufi.patch(f"{base}/llm", json={"replicas": 0}, headers=world.user)).status_code == 200
    thermal = f"{base}/llm/thermal"
    assert (await nufi.put(thermal, json={"trip_celsius": 80}, headers=world.user)).status_code == 200
    assert (await nufi.delete(thermal, headers=world.user)).status_code == 204
    assert (await nufi.delete(f"{base}/llm", headers=world.user)).status_code == 204

    records = await _records(nufi, world, "deployment", f"{project}/llm")
    assert [r["action"] for r in records] == [
        "deployment.create",
        "deployment.scale",
        "deployment.thermal_override",
        "deployment.thermal_override",
        "deployment.delete",
    ]
    assert {r["actor"] for r in records} == {"user"}
    create, scale, override_set, override_removed, delete = records
    assert create["after"]["image"] == "nufi-mock:inference" and create["after"]["replicas"] == 1
    assert (scale["before"], scale["after"]) == ({"replicas": 1}, {"replicas": 0})
    assert override_set["before"] == {"value": None}
    assert '"trip_celsius": 80' in override_set["after"]["value"]
    assert override_removed["after"] == {"value": None}
    assert delete["before"]["name"] == "llm" and delete["after"] is None


async def test_lab_changes_are_audited(nufi: httpx.AsyncClient, world: World, project: str) -> None:
    base = f"/api/v1/projects/{project}/labs"
    created = await nufi.post(base, json=_lab(), headers=world.user)
    assert created.status_code == 201, created.text
    assert (await nufi.post(f"{base}/lab/stop", headers=world.user)).status_code == 200
    assert (await nufi.post(f"{base}/lab/start", headers=world.user)).status_code == 200
    assert (await nufi.delete(f"{base}/lab", headers=world.user)).status_code == 204

    records = await _records(nufi, world, "lab", f"{project}/lab")
    assert [r["action"] for r in records] == ["lab.create", "lab.stop", "lab.start", "lab.delete"]
    assert {r["actor"] for r in records} == {"user"}
    create, stop, start, delete = records
    assert create["after"]["kind"] == "jupyter" and create["after"]["device_type"] == "lpu"
    assert (stop["before"], stop["after"]) == ({"running": True}, {"running": False})
    assert (start["before"], start["after"]) == ({"running": False}, {"running": True})
    assert delete["before"]["name"] == "lab"


async def test_a_refused_change_leaves_no_record(nufi: httpx.AsyncClient, world: World, project: str) -> None:
    base = f"/api/v1/projects/{project}/deployments"
    assert (await nufi.post(base, json=deployment_body(replicas=0), headers=world.user)).status_code == 201
    again = await nufi.post(base, json=deployment_body(replicas=0), headers=world.user)
    assert again.status_code == 409
    assert [r["action"] for r in await _records(nufi, world, "deployment", f"{project}/llm")] == [
        "deployment.create"
    ]


async def test_saving_what_is_already_there_records_nothing(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    unhealthy = {"enabled": True, "trip_hold_seconds": 0, "resume_hold_seconds": 30}
    policy, quota = {"enabled": True, "unhealthy": unhealthy}, f"/api/v1/admin/projects/{project}/quotas"
    deployments = f"/api/v1/projects/{project}/deployments"
    created = await nufi.post(deployments, json=deployment_body(replicas=1), headers=world.user)
    assert created.status_code == 201, created.text
    for _ in range(2):
        saved = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
        assert saved.status_code == 200, saved.text
        assert (await nufi.put(quota, json={"devices": {"lpu": 4}}, headers=world.admin)).status_code == 200
        scaled = await nufi.patch(f"{deployments}/llm", json={"replicas": 1}, headers=world.user)
        assert scaled.status_code == 200, scaled.text
    # (The log's filter is the target's id: the type's own records share "lpu".)
    actions = [r["action"] for r in await _records(nufi, world, "thermal_policy", "lpu")]
    assert [action for action in actions if action.startswith("thermal_policy.")] == ["thermal_policy.update"]
    actions = [r["action"] for r in await _records(nufi, world, "project-quota", project)]
    assert [action for action in actions if action.startswith("project.quota.")] == ["project.quota.set"]
    actions = [r["action"] for r in await _records(nufi, world, "deployment", f"{project}/llm")]
    assert actions == ["deployment.create"]


async def test_every_field_the_workloads_record_has_a_label(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    quota, base = f"/api/v1/admin/projects/{project}", f"/api/v1/projects/{project}"
    answers = [
        await nufi.put(
            f"{quota}/quotas",
            json={"devices": {"lpu": 4}, "storage": "20Gi", "pods": 10},
            headers=world.admin,
        ),
        await nufi.put(f"{quota}/members/bob", headers=world.admin),
        await nufi.post(f"{base}/labs", json=_lab(), headers=world.user),
        await nufi.post(f"{base}/deployments", json=deployment_body(), headers=world.user),
        await nufi.put(f"{base}/deployments/llm/thermal", json={"trip_celsius": 80}, headers=world.user),
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 201, 201, 200], [a.text for a in answers]
    everything = await nufi.get("/api/v1/admin/audit", params={"limit": 1000}, headers=world.admin)
    records = everything.json()["items"]
    assert {"project.create", "project.quota.set", "project.member.add", "lab.create"} <= {
        r["action"] for r in records
    }
    for record in records:
        assert unworded(record["before"]) | unworded(record["after"]) == set(), record
