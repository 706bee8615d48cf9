"""Accelerator quotas per project against the dev cluster, which stores and enforces ResourceQuotas as
kube-apiserver does: NuFi's quota written and read back, refused up front, and a deployment whose
pods the cluster refuses saying why in accelerator words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from support.lpu_type import LPU_RESOURCE_KEY, lpu_type
from support.polling import until
from support.world import LPU, World, create_project, deployment_body, project_name, register_lpu, serve

QUOTA_PATH = "/api/v1/namespaces/{project}/resourcequotas/nufi-accelerators"


async def _put(nufi: httpx.AsyncClient, world: World, project: str, body: dict[str, Any]) -> httpx.Response:
    return await nufi.put(f"/api/v1/admin/projects/{project}/quotas", json=body, headers=world.admin)


async def test_an_admin_sets_a_quota_members_read_it_and_the_audit_lists_it(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    refused = await _put(nufi, world, project, {"devices": {"lpu": 4, "tpu": 1}})
    assert refused.status_code == 422, refused.text
    assert (refused.json()["code"], refused.json()["field"]) == ("quota.unknown_type", "devices.tpu")
    bad_storage = await _put(nufi, world, project, {"storage": "lots"})
    assert bad_storage.status_code == 422 and "storage" in bad_storage.text
    not_admin = await nufi.put(f"/api/v1/admin/projects/{project}/quotas", json={}, headers=world.user)
    assert not_admin.status_code == 403

    written = await _put(nufi, world, project, {"devices": {"lpu": 4}, "storage": "100Gi", "pods": 20})
    assert written.status_code == 200, written.text
    stored = (await kube.get(QUOTA_PATH.format(project=project))).json()
    assert stored["spec"]["hard"] == {f"requests.{LPU}": "4", "requests.storage": "100Gi", "pods": "20"}
    assert stored["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "nufi"
    read = await nufi.get(f"/api/v1/projects/{project}/quotas", headers=world.user)
    assert read.status_code == 200, read.text
    assert read.json()["devices"] == [{"device_type": "lpu", "resource_key": LPU, "hard": 4, "used": 0}]
    audit = await nufi.get(f"/api/v1/admin/audit?target_id={project}", headers=world.admin)
    actions = [item["action"] for item in audit.json()["items"]]
    assert actions.count("project.quota.set") == 1


async def test_the_quota_holds_through_nufi_and_a_refused_pod_is_said_in_accelerator_words(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    assert (await _put(nufi, world, project, {"devices": {"lpu": 2}})).status_code == 200
    base = f"/api/v1/projects/{project}"
    created = await nufi.post(f"{base}/deployments", json=deployment_body(), headers=world.user)
    assert created.status_code == 201, created.text

    async def counted() -> dict[str, Any] | None:
        offers = (await nufi.get(f"{base}/accelerators", headers=world.user)).json()["items"]
        lpu = next(o for o in offers if o["device_type"] == "lpu")
        return lpu if lpu["in_use"] == 2 else None

    lpu = await until(counted, within=10)
    assert lpu is not None and lpu["quota"] == 2

    third = await nufi.post(
        f"{base}/deployments", json=deployment_body("more", replicas=1), headers=world.user
    )
    assert third.status_code == 422, third.text
    assert (third.json()["code"], third.json()["field"]) == ("quota.exceeded", "accelerator.count")
    lab = {"name": "lab", "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}}
    refused_lab = await nufi.post(f"{base}/labs", json=lab, headers=world.user)
    assert (refused_lab.status_code, refused_lab.json()["field"]) == (422, "accelerator.count")
    scaled = await nufi.patch(f"{base}/deployments/llm", json={"replicas": 3}, headers=world.user)
    assert (scaled.status_code, scaled.json()["field"]) == (422, "replicas")

    # The quota lowered under running pods: a replaced pod is refused by the cluster.
    assert (await _put(nufi, world, project, {"devices": {"lpu": 1}})).status_code == 200
    pods = (await kube.get(f"/api/v1/namespaces/{project}/pods")).json()["items"]
    await kube.delete(f"/api/v1/namespaces/{project}/pods/{pods[0]['metadata']['name']}")

    async def said() -> dict[str, Any] | None:
        body = (await nufi.get(f"{base}/deployments/llm", headers=world.user)).json()
        reason = body.get("reason_message") or {}
        return body if reason.get("code") == "workload.quota_exceeded" else None

    waiting = await until(said, within=10)
    assert waiting is not None and waiting["status"] in ("Pending", "Degraded")
    # What was in use when the cluster refused: the deleted pod may still have been counted then.
    assert waiting["reason"].startswith("project quota: HyperAccel LPU limited to 1, ")
    # The sentence names the type; the resource key stays a param, for a client.
    params = waiting["reason_message"]["params"]
    assert (params["what"], params["resource"]) == ("HyperAccel LPU", LPU_RESOURCE_KEY)

    # Raised again, the pod comes back.
    assert (await _put(nufi, world, project, {"devices": {"lpu": 2}})).status_code == 200

    async def ready() -> bool:
        body = (await nufi.get(f"{base}/deployments/llm", headers=world.user)).json()
        return bool(body["status"] == "Ready")

    assert await until(ready, within=10)


async def test_a_refusal_names_the_field_that_must_change_in_the_readers_words(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    assert (await _put(nufi, world, project, {"devices": {"lpu": 3}})).status_code == 200
    base = f"/api/v1/projects/{project}/deployments"
    assert (await nufi.post(base, json=deployment_body(), headers=world.user)).status_code == 201
    # 2 of 3 in use: one pod of one LPU fits, two replicas of it do not.
    over = deployment_body("more", replicas=2)
    refused = await nufi.post(base, json=over, headers=world.user)
    assert (refused.status_code, refused.json()["field"]) == (422, "replicas"), refused.text
    assert refused.json()["detail"] == (
        f"Project '{project}' has no room for 2 more HyperAccel LPU. Its quota allows 3 and 2 are in use, "
        "so only 1 more can be used. Lower the replicas to 1 or fewer, or ask an admin to raise the quota."
    )
    korean = (await nufi.post(base, json=over, headers=world.user | {"Accept-Language": "ko"})).json()
    assert "복제본을 1개 이하로 줄이거나" in korean["detail"] and "HyperAccel LPU 2개" in korean["detail"]
    for said in (refused.json()["detail"], korean["detail"]):
        assert "nufi-accelerators" not in said and LPU not in said and "쿼터" not in said
    # One pod of two LPUs is over the room by itself: the count per pod is what must change.
    wide = deployment_body("wide", replicas=1, accelerator={"device_type": "lpu", "count": 2})
    counted = await nufi.post(base, json=wide, headers=world.user)
    assert (counted.status_code, counted.json()["field"]) == (422, "accelerator.count"), counted.text
    # A scale counts the replicas it has: 2 running and 1 more fitting, so at most 3.
    scaled = await nufi.patch(f"{base}/llm", json={"replicas": 4}, headers=world.user)
    assert (scaled.status_code, scaled.json()["field"]) == (422, "replicas"), scaled.text
    assert "Lower the replicas to 3 or fewer" in scaled.json()["detail"]


async def test_new_projects_start_with_the_default_quota(world: World, tmp_path: Path) -> None:
    settings = world.settings(
        f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}",
        project_default_quota_devices={"lpu": 3, "not-yet-registered": 1},
        project_default_quota_pods=10,
    )
    async with serve(settings) as nufi:
        await register_lpu(nufi, world)
        name = project_name()
        await create_project(nufi, world, name, ["user"])
        try:
            read = await nufi.get(f"/api/v1/projects/{name}/quotas", headers=world.user)
            body = read.json()
            assert [(d["device_type"], d["hard"]) for d in body["devices"]] == [("lpu", 3)]
            assert body["pods"]["hard"] == "10" and body["storage"] is None
        finally:
            await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


async def test_a_lab_past_the_quota_waits_in_accelerator_words_and_is_not_started_again(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    assert (await _put(nufi, world, project, {"devices": {"lpu": 1}})).status_code == 200
    base = f"/api/v1/projects/{project}"
    lab = {"name": "lab", "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}}
    assert (await nufi.post(f"{base}/labs", json=lab, headers=world.user)).status_code == 201
    # Lowered under the running lab, its pod once gone is refused by the cluster.
    assert (await _put(nufi, world, project, {"devices": {"lpu": 0}})).status_code == 200
    await kube.delete(f"/api/v1/namespaces/{project}/pods/lab-0")

    async def waiting() -> dict[str, Any] | None:
        body = (await nufi.get(f"{base}/labs/lab", headers=world.user)).json()
        return body if body["status"] == "Pending" else None

    pending = await until(waiting, within=10)
    # In use: as the quota counted when read (the deleted pod's devices may still be counted then).
    assert pending is not None and pending["reason"].startswith(
        "project quota: HyperAccel LPU limited to 0, "
    )
    assert (await _put(nufi, world, project, {"devices": {"lpu": 1}})).status_code == 200
    assert (await nufi.post(f"{base}/labs/lab/stop", headers=world.user)).status_code == 200

    async def deployed() -> bool:
        # The stopped lab's pod leaves the quota's count once it is gone.
        body = deployment_body(replicas=1)
        return (await nufi.post(f"{base}/deployments", json=body, headers=world.user)).status_code == 201

    assert await until(deployed, within=10)
    started = await nufi.post(f"{base}/labs/lab/start", headers=world.user)
    assert (started.status_code, started.json()["code"]) == (422, "quota.exceeded")


async def test_a_types_key_edit_and_deletion_follow_into_the_quota(
    nufi: httpx.AsyncClient, world: World, project: str, kube: httpx.AsyncClient
) -> None:
    created = await nufi.post(
        "/api/v1/admin/devices",
        json=lpu_type(id="npu", name="NPU", resource_key="example.com/npu"),
        params={"force": "true"},
        headers=world.admin,
    )
    assert created.status_code == 201, created.text
    body = {"devices": {"lpu": 2, "npu": 1}}
    assert (await _put(nufi, world, project, body)).status_code == 200
    edit = lpu_type(name="NPU", resource_key="example.com/npu-v2", revision=1)
    del edit["id"]
    edited = await nufi.put(
        "/api/v1/admin/devices/npu", json=edit, params={"force": "true"}, headers=world.admin
    )
    assert edited.status_code == 200, edited.text

    async def hard_becomes(wanted: dict[str, str]) -> bool:
        stored = (await kube.get(QUOTA_PATH.format(project=project))).json()
        return bool(stored["spec"]["hard"] == wanted)

    lpu = f"requests.{LPU}"
    assert await until(lambda: hard_becomes({lpu: "2", "requests.example.com/npu-v2": "1"}), within=5)
    assert (await nufi.delete("/api/v1/admin/devices/npu", headers=world.admin)).status_code == 204
    assert await until(lambda: hard_becomes({lpu: "2"}), within=5)
