"""A pack's dry run is the plan its apply commits, against a real Prometheus and the dev cluster: for
every refusal the catalog knows, the dry run and the apply refuse with the same code and field, and the
apply leaves the database and the cluster as they were; and the live checks of a document reach
Prometheus as often as one save of the same type through the devices API does."""

from __future__ import annotations

import dataclasses
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from integration.packs.test_packs_api import APPLY, apply, lpu_pack
from nufi.devices.presets import official_presets
from support.http_fault import HttpFault
from support.lpu_type import lpu_type
from support.world import World, names_in, serve

DEVICES = "/api/v1/admin/devices"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
OFFICIAL = official_presets()[0]


Documents = Callable[[httpx.AsyncClient, World], Awaitable[list[dict[str, Any]]]]


@dataclass(frozen=True)
class Refusal:
    """Documents refused with `code` at `field` (None: the refusal names no field), after `setup`."""

    code: str
    field: str | None
    documents: Documents
    options: dict[str, bool] = dataclasses.field(default_factory=dict)
    setup: Callable[[httpx.AsyncClient, World, httpx.AsyncClient], Awaitable[None]] | None = None


def given(
    *documents: dict[str, Any],
) -> Callable[[httpx.AsyncClient, World], Awaitable[list[dict[str, Any]]]]:
    async def documents_of(nufi: httpx.AsyncClient, world: World) -> list[dict[str, Any]]:
        return list(documents)

    return documents_of


async def official_renamed(nufi: httpx.AsyncClient, world: World) -> list[dict[str, Any]]:
    exported = await nufi.get(f"/api/v1/admin/devices/{OFFICIAL.id}/pack", headers=world.admin)
    document: dict[str, Any] = exported.json()
    document["spec"]["name"] = "Renamed"
    return [document]


async def official_unchanged(nufi: httpx.AsyncClient, world: World) -> list[dict[str, Any]]:
    exported = await nufi.get(f"/api/v1/admin/devices/{OFFICIAL.id}/pack", headers=world.admin)
    return [exported.json()]


async def lpu_registered(nufi: httpx.AsyncClient, world: World, kube: httpx.AsyncClient) -> None:
    created = await apply(nufi, world, lpu_pack())
    assert created.status_code == 200, created.text


async def lpu_held_by_a_workload(nufi: httpx.AsyncClient, world: World, kube: httpx.AsyncClient) -> None:
    await lpu_registered(nufi, world, kube)
    labels = {"app.kubernetes.io/managed-by": "nufi", "nufi.io/device-type": "lpu", "app": "holder"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "lpu-holder", "labels": labels},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "holder"}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": "nufi-mock:inference"}]},
            },
        },
    }
    made = await kube.post(DEPLOYMENTS, json=deployment)
    assert made.status_code == 201, made.text


REFUSALS = {
    "taken resource key": Refusal(
        "db.resource_key_taken",
        "documents[0].spec.resource_key",
        given(lpu_pack("lpu-again")),
        setup=lpu_registered,
    ),
    "official id": Refusal("device_type.official_identity", "documents[0].spec.name", official_renamed),
    "official key": Refusal(
        "device_type.official_key",
        "documents[0].spec.resource_key",
        given(lpu_pack("mine", resource_key=OFFICIAL.resource_key)),
    ),
    "reserved id": Refusal(
        "device_type.id_reserved", "documents[0].metadata.name", given(lpu_pack("overview"))
    ),
    "in use": Refusal(
        "device_type.in_use", None, official_unchanged, {"prune": True}, setup=lpu_held_by_a_workload
    ),
    "key change in use": Refusal(
        "device_type.in_use",
        "documents[0].spec.resource_key",
        given(lpu_pack(resource_key="example.com/elsewhere")),
        setup=lpu_held_by_a_workload,
    ),
    "stale revision": Refusal(
        "device_type.stale",
        "documents[0].metadata.revision",
        given({**lpu_pack(), "metadata": {"name": "lpu", "revision": 7}}),
        setup=lpu_registered,
    ),
    "node capacity": Refusal(
        "save.resource_key_absent",
        "documents[0].spec.resource_key",
        given(lpu_pack("ghost", resource_key="example.com/ghost")),
    ),
    "metric expression": Refusal(
        "save.metric_failed",
        "documents[0].spec.metrics.utilization",
        given(lpu_pack(metrics={"utilization": "lpu_utilization_percent / on() lpu_temperature_celsius"})),
    ),
}


async def state(nufi: httpx.AsyncClient, world: World, kube: httpx.AsyncClient) -> list[Any]:
    """What an apply could change: the types, the audit log, and what the cluster holds."""
    types = await nufi.get("/api/v1/devices", headers=world.admin)
    audit = await nufi.get("/api/v1/admin/audit", headers=world.admin)
    return [types.json(), audit.json(), await names_in(kube, DEPLOYMENTS)]


@pytest.mark.parametrize("refusal", REFUSALS.values(), ids=REFUSALS.keys())
async def test_the_dry_run_and_the_apply_refuse_alike_and_the_apply_changes_nothing(
    nufi: httpx.AsyncClient, world: World, kube: httpx.AsyncClient, refusal: Refusal
) -> None:
    if refusal.setup is not None:
        await refusal.setup(nufi, world, kube)
    try:
        documents = await refusal.documents(nufi, world)
        before = await state(nufi, world, kube)
        planned = await apply(nufi, world, *documents, dry_run=True, **refusal.options)
        applied = await apply(nufi, world, *documents, **refusal.options)
        assert planned.status_code == applied.status_code >= 400, (planned.text, applied.text)
        said = [(r.json()["code"], r.json().get("field")) for r in (planned, applied)]
        assert said == [(refusal.code, refusal.field)] * 2
        assert await state(nufi, world, kube) == before
    finally:
        await kube.delete(f"{DEPLOYMENTS}/lpu-holder")


async def lpu_queries(proxy: HttpFault, world: World, database: Path, path: str, body: Any) -> int:
    """How many requests reach Prometheus asking about the LPU's series while a fresh NuFi answers
    `body` posted to `path`."""
    settings = world.settings(f"sqlite+aiosqlite:///{database}").model_copy(
        update={"prometheus_url": proxy.url, "thermal_enabled": False}
    )
    async with serve(settings) as nufi:
        seen = len(proxy.seen)
        response = await nufi.post(path, json=body, headers=world.admin)
        assert response.status_code in (200, 201), response.text
        return sum("lpu_" in urllib.parse.unquote_plus(asked) for _, asked, _ in proxy.seen[seen:])


async def test_the_live_checks_reach_prometheus_once_per_document(world: World, tmp_path: Path) -> None:
    # Disabled and without protection or alerts: nothing but the save's own checks asks about the
    # LPU's series (no refresher, controller or alert rule follows it).
    document = lpu_pack(enabled=False)
    del document["spec"]["protection"], document["spec"]["alerts"]
    proxy = await HttpFault(world.prometheus.url).start()
    try:
        saved = await lpu_queries(proxy, world, tmp_path / "saved.db", DEVICES, lpu_type(enabled=False))
        applied = await lpu_queries(proxy, world, tmp_path / "applied.db", APPLY, {"documents": [document]})
    finally:
        await proxy.close()
    assert saved > 0 and applied == saved, (saved, applied)
