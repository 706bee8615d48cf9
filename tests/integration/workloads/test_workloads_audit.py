"""Members' actions are audited as admins' are: creating, scaling and deleting a deployment, creating,
stopping, starting and deleting a lab, and setting or removing a deployment's thermal override each
leave a record (who, what, which object, before and after) in the admin audit log."""

from __future__ import annotations

from typing import Any

import httpx

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
