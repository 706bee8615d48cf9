"""Device packs through the REST API, against a real Prometheus and the dev cluster: create from a
pack, apply again without change or audit record, diff, prune, revisions, official types, refusals."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx

from nufi.packs import dump_packs, parse_packs
from support.lpu_type import LPU_LABELS, LPU_METRICS, LPU_RESOURCE_KEY
from support.world import World, serve

APPLY = "/api/v1/admin/device-packs/apply"


def lpu_pack(name: str = "lpu", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "HyperAccel LPU",
        "vendor": "HyperAccel",
        "resource_key": LPU_RESOURCE_KEY,
        "labels": copy.deepcopy(LPU_LABELS),
        "metrics": {k: v for k, v in copy.deepcopy(LPU_METRICS).items() if v is not None},
        "alerts": {"hot": {"celsius": 80.0}},
        "protection": {"enabled": True, "trip_celsius": 90.0, "resume_celsius": 80.0},
    }
    body.update(spec)
    return {"apiVersion": "nufi.io/v1", "kind": "DeviceType", "metadata": {"name": name}, "spec": body}


async def apply(nufi: httpx.AsyncClient, world: World, *documents: dict[str, Any], **options: bool) -> Any:
    return await nufi.post(APPLY, json={"documents": list(documents), **options}, headers=world.admin)


async def audit_total(nufi: httpx.AsyncClient, world: World) -> int:
    total: int = (await nufi.get("/api/v1/admin/audit", headers=world.admin)).json()["total"]
    return total


async def test_a_pack_creates_its_type_and_applying_it_again_changes_and_records_nothing(
    nufi: httpx.AsyncClient, world: World
) -> None:
    created = await apply(nufi, world, lpu_pack())
    assert created.status_code == 200, created.text
    assert [(r["name"], r["action"]) for r in created.json()["results"]] == [("lpu", "created")]
    # The type, its protection policy and its alert thresholds: one audit record each.
    actions = [
        r["action"] for r in (await nufi.get("/api/v1/admin/audit", headers=world.admin)).json()["items"]
    ]
    assert sorted(actions[:3]) == ["alert_thresholds.update", "device_type.create", "thermal_policy.update"]
    alerts = (await nufi.get("/api/v1/admin/devices/lpu/alerts", headers=world.admin)).json()
    assert alerts["thresholds"]["hot"]["celsius"] == 80.0
    before = await audit_total(nufi, world)
    exported = await nufi.get("/api/v1/admin/devices/lpu/pack", headers=world.admin)
    assert exported.status_code == 200
    again = await apply(nufi, world, exported.json())
    assert again.status_code == 200, again.text
    assert again.json()["results"] == [{"name": "lpu", "action": "unchanged", "changes": []}]
    assert await audit_total(nufi, world) == before
    # What the CLI prints is what the server's YAML is, and reads back to the same document.
    yaml_text = await nufi.get(
        "/api/v1/admin/devices/lpu/pack", params={"format": "yaml"}, headers=world.admin
    )
    assert yaml_text.headers["content-type"].startswith("application/yaml")
    assert yaml_text.text == dump_packs([exported.json()])
    assert parse_packs(yaml_text.text) == [exported.json()]
    assert "revision" not in exported.json()["metadata"]


async def test_a_dry_run_shows_a_changed_threshold_and_changes_nothing(
    nufi: httpx.AsyncClient, world: World
) -> None:
    assert (await apply(nufi, world, lpu_pack())).status_code == 200
    before = await audit_total(nufi, world)
    hotter = lpu_pack(alerts={"hot": {"celsius": 85.0}})
    diff = await apply(nufi, world, hotter, dry_run=True)
    assert diff.status_code == 200, diff.text
    assert diff.json() == {
        "dry_run": True,
        "results": [
            {
                "name": "lpu",
                "action": "updated",
                "changes": [{"path": "spec.alerts.hot.celsius", "before": 80.0, "after": 85.0}],
            }
        ],
    }
    assert await audit_total(nufi, world) == before
    alerts = (await nufi.get("/api/v1/admin/devices/lpu/alerts", headers=world.admin)).json()
    assert alerts["thresholds"]["hot"]["celsius"] == 80.0
    applied = await apply(nufi, world, hotter)
    assert applied.json()["results"][0]["action"] == "updated"
    assert await audit_total(nufi, world) == before + 1


async def test_an_unknown_field_is_refused_with_its_path_and_nothing_is_written(
    nufi: httpx.AsyncClient, world: World
) -> None:
    broken = lpu_pack("lpu-b")
    broken["spec"]["metrics"]["tempreature"] = broken["spec"]["metrics"].pop("temperature")
    before = await audit_total(nufi, world)
    response = await apply(nufi, world, lpu_pack(), broken)
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "pack.unknown_field_suggest"
    assert problem["field"] == "documents[1].spec.metrics.tempreature"
    assert "temperature" in problem["detail"]
    # The first document was valid, but nothing is written when any is not.
    assert await audit_total(nufi, world) == before
    assert (await nufi.get("/api/v1/devices/lpu", headers=world.admin)).status_code == 404


async def test_prune_deletes_only_the_custom_types_no_document_names(
    nufi: httpx.AsyncClient, world: World
) -> None:
    other = lpu_pack("lpu-other", resource_key="hyperaccel.ai/other")
    assert (await apply(nufi, world, lpu_pack(), other, force=True)).status_code == 200
    pruned = await apply(nufi, world, lpu_pack(), prune=True)
    assert pruned.status_code == 200, pruned.text
    actions = {r["name"]: r["action"] for r in pruned.json()["results"]}
    assert actions == {"lpu": "unchanged", "lpu-other": "deleted"}
    ids = {t["id"] for t in (await nufi.get("/api/v1/devices", headers=world.admin)).json()["items"]}
    assert ids == {"lpu", "nvidia-gpu", "furiosa-rngd", "rebellions-atom"}
    nothing = await apply(nufi, world, prune=True)
    assert (nothing.status_code, nothing.json()["code"]) == (422, "pack.prune_without_documents")


async def test_a_stale_revision_conflicts_and_an_official_type_keeps_its_identity(
    nufi: httpx.AsyncClient, world: World
) -> None:
    exported = (await nufi.get("/api/v1/admin/devices/furiosa-rngd/pack", headers=world.admin)).json()
    stale = copy.deepcopy(exported)
    stale["metadata"]["revision"] = 7
    conflict = await apply(nufi, world, stale)
    assert (conflict.status_code, conflict.json()["code"]) == (409, "device_type.stale")
    renamed = copy.deepcopy(exported)
    renamed["spec"]["name"] = "Renamed"
    refused = await apply(nufi, world, renamed)
    assert refused.status_code == 422
    assert (refused.json()["code"], refused.json()["field"]) == (
        "device_type.official_identity",
        "documents[0].spec.name",
    )
    disabled = copy.deepcopy(exported)
    disabled["metadata"]["revision"] = 1
    disabled["spec"]["enabled"] = False
    changed = await apply(nufi, world, disabled, force=True)
    assert changed.status_code == 200, changed.text
    assert changed.json()["results"][0]["changes"] == [
        {"path": "spec.enabled", "before": True, "after": False}
    ]


async def test_pack_routes_refuse_anonymous_callers_and_non_admins(
    nufi: httpx.AsyncClient, world: World
) -> None:
    for method, path, body in (
        ("GET", "/api/v1/admin/devices/nvidia-gpu/pack", None),
        ("POST", APPLY, {"documents": []}),
    ):
        assert (await nufi.request(method, path, json=body)).status_code == 401
        as_user = await nufi.request(method, path, json=body, headers=world.user)
        assert as_user.status_code == 403
    assert (await nufi.get("/api/v1/device-packs/schema")).status_code == 401
    schema = await nufi.get("/api/v1/device-packs/schema", headers=world.user)
    assert schema.status_code == 200
    assert schema.json()["properties"]["kind"]["const"] == "DeviceType"


async def test_a_document_that_is_not_a_mapping_is_refused_by_its_position(
    nufi: httpx.AsyncClient, world: World
) -> None:
    response = await apply(nufi, world, lpu_pack(), "plain")  # type: ignore[arg-type]
    assert response.status_code == 422
    assert (response.json()["code"], response.json()["field"]) == ("pack.invalid_field", "documents[1]")


async def test_an_export_applied_to_a_fresh_nufi_exports_there_byte_for_byte(
    nufi: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    assert (await apply(nufi, world, lpu_pack())).status_code == 200
    here = await nufi.get("/api/v1/admin/devices/lpu/pack", params={"format": "yaml"}, headers=world.admin)
    async with serve(world.settings(f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}")) as fresh:
        applied = await fresh.post(APPLY, json={"documents": parse_packs(here.text)}, headers=world.admin)
        assert [r["action"] for r in applied.json()["results"]] == ["created"]
        there = await fresh.get(
            "/api/v1/admin/devices/lpu/pack", params={"format": "yaml"}, headers=world.admin
        )
        missing = await fresh.get("/api/v1/admin/devices/nothing/pack", headers=world.admin)
    assert there.text == here.text
    assert missing.status_code == 404
