"""The device catalog through its REST API: the registration wizard, saving, editing, the audit log."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from support.lpu_type import LPU_LABELS, LPU_METRICS, lpu_type
from support.nufi_app import bearer
from support.world import LPU, World, serve


async def test_check_resource_key_finds_the_lpu_on_both_nodes(nufi: httpx.AsyncClient, world: World) -> None:
    response = await nufi.post(
        "/api/v1/admin/devices/check-resource-key",
        json={"resource_key": LPU},
        headers=bearer(world.admin_token),
    )
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] and body["found"]
    assert body["nodes"] == [
        {"name": "lpu-node-1", "capacity": 6, "allocatable": 6},
        {"name": "lpu-node-2", "capacity": 4, "allocatable": 4},
    ]
    assert "detected" in body["message"]


@pytest.mark.parametrize(
    ("key", "rule"),
    [
        ("kubernetes.io/lpu", "kubernetes.io"),
        ("lpu", "prefix"),
        ("Hyperaccel.AI/lpu", "subdomain"),
        ("requests.hyperaccel.ai/lpu", "requests."),
    ],
)
async def test_check_resource_key_names_the_broken_rule(
    nufi: httpx.AsyncClient, world: World, key: str, rule: str
) -> None:
    response = await nufi.post(
        "/api/v1/admin/devices/check-resource-key",
        json={"resource_key": key},
        headers=bearer(world.admin_token),
    )
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["field"] == "resource_key"
    assert rule in problem["detail"] + " ".join(problem.get("problems", []))


async def test_check_resource_key_reports_an_absent_key(nufi: httpx.AsyncClient, world: World) -> None:
    response = await nufi.post(
        "/api/v1/admin/devices/check-resource-key",
        json={"resource_key": "example.com/npu"},
        headers=bearer(world.admin_token),
    )
    body = response.json()
    assert response.status_code == 200 and body["valid"] and not body["found"] and body["nodes"] == []
    assert "example.com/npu" in body["message"]


async def test_check_resource_key_names_the_type_that_already_uses_the_key(
    nufi: httpx.AsyncClient, world: World
) -> None:
    async def owner(**request: str) -> object:
        response = await nufi.post(
            "/api/v1/admin/devices/check-resource-key", json=request, headers=bearer(world.admin_token)
        )
        assert response.status_code == 200, response.text
        return response.json()["registered_by"]

    assert await owner(resource_key="nvidia.com/gpu") == {"id": "nvidia-gpu", "name": "NVIDIA GPU"}
    # The type being edited does not collide with its own key; a key no type uses has no owner.
    assert await owner(resource_key="nvidia.com/gpu", editing="nvidia-gpu") is None
    assert await owner(resource_key="example.com/npu") is None


async def test_check_metrics_accepts_the_seed_expressions(nufi: httpx.AsyncClient, world: World) -> None:
    response = await nufi.post(
        "/api/v1/admin/devices/check-metrics",
        json={"labels": LPU_LABELS, "metrics": LPU_METRICS},
        headers=bearer(world.admin_token),
    )
    assert response.status_code == 200
    body = response.json()
    assert body["ok"], body
    util = body["results"]["utilization"]
    assert util["series"] == 8 and util["missing_labels"] == []
    assert {s["node"] for s in util["sample"]} <= {"lpu-node-1", "lpu-node-2"}


async def test_check_metrics_reports_missing_labels_and_empty_results(
    nufi: httpx.AsyncClient, world: World
) -> None:
    metrics = {
        **LPU_METRICS,
        "utilization": "avg by (node) (lpu_utilization_percent)",
        "temperature": "nothing_here_celsius",
    }
    response = await nufi.post(
        "/api/v1/admin/devices/check-metrics",
        json={"labels": LPU_LABELS, "metrics": metrics},
        headers=bearer(world.admin_token),
    )
    body = response.json()
    assert response.status_code == 200 and not body["ok"]
    assert body["results"]["utilization"]["missing_labels"] == ["device"]
    assert "by (" in body["results"]["utilization"]["error"]
    assert any("no series" in w for w in body["results"]["temperature"]["warnings"])


async def test_register_then_every_user_sees_it_at_once(nufi: httpx.AsyncClient, world: World) -> None:
    created = await nufi.post("/api/v1/admin/devices", json=lpu_type(), headers=bearer(world.admin_token))
    assert created.status_code == 201, created.text
    assert created.headers["location"] == "/api/v1/devices/lpu"
    assert created.json()["kind"] == "custom" and created.json()["revision"] == 1

    listed = await nufi.get("/api/v1/devices", headers=bearer(world.user_token))
    rows = {row["id"]: row for row in listed.json()["items"]}
    assert {"nvidia-gpu", "furiosa-rngd", "rebellions-atom", "lpu"} <= set(rows)
    assert rows["lpu"]["inventory"] == {"nodes": 2, "capacity": 10, "allocatable": 10, "allocated": 0}
    assert "inventory_error" not in rows["lpu"]
    assert rows["nvidia-gpu"]["kind"] == "official" and rows["nvidia-gpu"]["inventory"]["capacity"] == 8

    one = await nufi.get("/api/v1/devices/lpu", headers=bearer(world.user_token))
    assert [n["node"] for n in one.json()["inventory"]["per_node"]] == ["lpu-node-1", "lpu-node-2"]

    audit = await nufi.get("/api/v1/admin/audit", headers=bearer(world.admin_token))
    first = audit.json()["items"][0]
    assert (first["action"], first["actor"], first["target_id"]) == ("device_type.create", "admin", "lpu")
    assert first["after"]["resource_key"] == LPU and first["details"]["force"] is False


async def test_the_catalog_stays_readable_while_the_cluster_is_not(
    world: World, sqlite_url: str, tmp_path: Path
) -> None:
    settings = world.settings(sqlite_url).model_copy(update={"kubeconfig": tmp_path / "no-kubeconfig"})
    async with serve(settings) as nufi:
        listed = await nufi.get("/api/v1/devices", headers=bearer(world.user_token))
        one = await nufi.get("/api/v1/devices/nvidia-gpu", headers=bearer(world.user_token))
    assert listed.status_code == 200 and one.status_code == 200
    for row in [*listed.json()["items"], one.json()]:
        assert row["inventory"] is None
        assert "no-kubeconfig" in row["inventory_error"], row["inventory_error"]


async def test_duplicates_and_official_keys_conflict(nufi: httpx.AsyncClient, world: World) -> None:
    admin = bearer(world.admin_token)
    assert (await nufi.post("/api/v1/admin/devices", json=lpu_type(), headers=admin)).status_code == 201
    same_id = await nufi.post(
        "/api/v1/admin/devices", json=lpu_type(resource_key="hyperaccel.ai/lpu2"), headers=admin
    )
    assert same_id.status_code in (409, 422)
    same_key = await nufi.post("/api/v1/admin/devices", json=lpu_type(id="lpu-b"), headers=admin)
    assert same_key.status_code == 409 and same_key.json()["field"] == "resource_key"
    official_key = await nufi.post(
        "/api/v1/admin/devices", json=lpu_type(id="gpu2", resource_key="nvidia.com/gpu"), headers=admin
    )
    assert official_key.status_code == 409 and official_key.json()["device_type"] == "nvidia-gpu"
    official_id = await nufi.post(
        "/api/v1/admin/devices", json=lpu_type(id="nvidia-gpu", resource_key="x.io/y"), headers=admin
    )
    assert official_id.status_code == 409 and official_id.json()["field"] == "id"


async def test_absent_key_is_refused_unless_forced_and_audited(nufi: httpx.AsyncClient, world: World) -> None:
    admin = bearer(world.admin_token)
    ghost = lpu_type(id="ghost", resource_key="example.com/ghost")
    refused = await nufi.post("/api/v1/admin/devices", json=ghost, headers=admin)
    assert refused.status_code == 422 and "example.com/ghost" in refused.json()["detail"]
    assert (await nufi.get("/api/v1/devices/ghost", headers=admin)).status_code == 404

    forced = await nufi.post("/api/v1/admin/devices", params={"force": "true"}, json=ghost, headers=admin)
    assert forced.status_code == 201
    record = (await nufi.get("/api/v1/admin/audit", params={"target_id": "ghost"}, headers=admin)).json()
    assert record["total"] == 1
    details = record["items"][0]["details"]
    assert details["force"] is True and any("example.com/ghost" in b for b in details["bypassed"])


async def test_invalid_bodies_name_the_field(nufi: httpx.AsyncClient, world: World) -> None:
    admin = bearer(world.admin_token)
    bad_expr = lpu_type(metrics={**LPU_METRICS, "utilization": "sum by (node (x"})
    response = await nufi.post("/api/v1/admin/devices", json=bad_expr, headers=admin)
    assert response.status_code == 422 and "utilization" in response.text
    bad_label = lpu_type(labels={**LPU_LABELS, "device": "dev-ice"})
    response = await nufi.post("/api/v1/admin/devices", json=bad_label, headers=admin)
    assert response.status_code == 422 and "labels" in response.text and "device" in response.text
    bad_unit = lpu_type(metrics={**LPU_METRICS, "memory": {**LPU_METRICS["memory"], "unit": "TB"}})
    assert (await nufi.post("/api/v1/admin/devices", json=bad_unit, headers=admin)).status_code == 422
    listed = (await nufi.get("/api/v1/devices", headers=admin)).json()["items"]
    assert "lpu" not in {row["id"] for row in listed}


async def test_update_with_revision_and_stale_edits(nufi: httpx.AsyncClient, world: World) -> None:
    admin = bearer(world.admin_token)
    await nufi.post("/api/v1/admin/devices", json=lpu_type(), headers=admin)
    edit = lpu_type(name="LPU v2", revision=1)
    del edit["id"]
    first = await nufi.put("/api/v1/admin/devices/lpu", json=edit, headers=admin)
    assert first.status_code == 200 and first.json()["revision"] == 2 and first.json()["name"] == "LPU v2"
    stale = await nufi.put("/api/v1/admin/devices/lpu", json={**edit, "name": "LPU v3"}, headers=admin)
    assert stale.status_code == 409 and stale.json()["current_revision"] == 2
    assert (await nufi.get("/api/v1/devices/lpu", headers=admin)).json()["name"] == "LPU v2"


async def test_official_types_can_be_disabled_and_reset_but_not_deleted(
    nufi: httpx.AsyncClient, world: World
) -> None:
    admin = bearer(world.admin_token)
    preset = (await nufi.get("/api/v1/devices/nvidia-gpu", headers=admin)).json()
    edit = {
        k: preset[k] for k in ("name", "vendor", "resource_key", "labels", "metrics", "thermal", "fetcher")
    }
    disabled = await nufi.put(
        "/api/v1/admin/devices/nvidia-gpu",
        params={"force": "true"},
        json={**edit, "enabled": False, "revision": preset["revision"]},
        headers=admin,
    )
    assert disabled.status_code == 200, disabled.text
    assert disabled.json()["enabled"] is False and disabled.json()["revision"] == preset["revision"] + 1
    renamed = await nufi.put(
        "/api/v1/admin/devices/nvidia-gpu",
        json={**edit, "resource_key": "nvidia.com/other", "revision": 2},
        headers=admin,
    )
    assert renamed.status_code == 422 and renamed.json()["field"] == "resource_key"
    deleted = await nufi.delete("/api/v1/admin/devices/nvidia-gpu", headers=admin)
    assert deleted.status_code == 409
    reset = await nufi.post("/api/v1/admin/devices/nvidia-gpu/reset", headers=admin)
    assert reset.status_code == 200 and reset.json()["enabled"] is True
    assert (await nufi.get("/api/v1/devices/nvidia-gpu", headers=admin)).json()["revision"] == 1
    actions = [r["action"] for r in (await nufi.get("/api/v1/admin/audit", headers=admin)).json()["items"]]
    assert actions[:2] == ["device_type.reset", "device_type.update"]


async def test_delete_custom_type(nufi: httpx.AsyncClient, world: World) -> None:
    admin = bearer(world.admin_token)
    await nufi.post("/api/v1/admin/devices", json=lpu_type(), headers=admin)
    assert (
        await nufi.delete("/api/v1/admin/devices/lpu", params={"revision": 5}, headers=admin)
    ).status_code == 409
    assert (await nufi.delete("/api/v1/admin/devices/lpu", headers=admin)).status_code == 204
    assert (await nufi.get("/api/v1/devices/lpu", headers=admin)).status_code == 404
    assert (await nufi.delete("/api/v1/admin/devices/lpu", headers=admin)).status_code == 404


async def test_a_type_saved_on_one_replica_is_served_by_another_at_once(
    world: World, sqlite_url: str
) -> None:
    async with serve(world.settings(sqlite_url)) as first, serve(world.settings(sqlite_url)) as second:
        before = (await second.get("/api/v1/devices", headers=bearer(world.user_token))).json()["items"]
        assert "lpu" not in {row["id"] for row in before}
        created = await first.post(
            "/api/v1/admin/devices", json=lpu_type(), headers=bearer(world.admin_token)
        )
        assert created.status_code == 201
        seen = await second.get("/api/v1/devices/lpu", headers=bearer(world.user_token))
        assert seen.status_code == 200 and seen.json()["resource_key"] == LPU


async def test_ids_that_shadow_api_paths_are_refused(nufi: httpx.AsyncClient, world: World) -> None:
    response = await nufi.post(
        "/api/v1/admin/devices", json=lpu_type(id="overview"), headers=bearer(world.admin_token)
    )
    assert response.status_code == 422 and response.json()["field"] == "id"
