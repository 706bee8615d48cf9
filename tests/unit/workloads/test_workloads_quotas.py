"""The quota service over a fake cluster (ResourceQuotas and namespaces in a dict, resourceVersions
checked as the API server checks them) and a real in-memory database for intents and audit records."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from nufi.auth import DEFAULT_ADMIN_ROLE, Principal
from nufi.cluster import ClusterGateway
from nufi.cluster.kube_rest import KubeRefused
from nufi.db import Database
from nufi.db.audit import AuditRepository
from nufi.db.intents import Intent
from nufi.devices.catalog import DeviceCatalog
from nufi.errors import Forbidden, NotFound, NufiError, Unauthorized, ValidationFailed
from nufi.events import DeviceTypeChanged, Events, Parts
from nufi.workloads.labels import MEMBERS_ANNOTATION, PROJECT
from nufi.workloads.projects import service as projects_module
from nufi.workloads.projects.service import ProjectService
from nufi.workloads.quotas import service as quotas_module
from nufi.workloads.quotas.room import QUOTA_NAME, QuotaSpec, devices_demand, pods_demand, storage_demand
from nufi.workloads.quotas.service import QuotaService
from support.nufi_app import MEMORY_DATABASE

ADMIN = Principal(subject="root", username="root", roles=frozenset({DEFAULT_ADMIN_ROLE}))
ALICE = Principal(subject="alice", username="alice", roles=frozenset())
LPU = "requests.hyperaccel.ai/lpu"
# What a refusal's params hold for a program: the quota and its figures (the words are params too).
FIGURES = ("project", "quota", "resource_key", "hard", "used", "requested", "room")


@dataclass
class FakeType:
    id: str
    resource_key: str


@dataclass
class FakeCatalog:
    types: dict[str, str] = field(
        default_factory=lambda: {"lpu": "hyperaccel.ai/lpu", "gpu": "nvidia.com/gpu"}
    )

    async def find(self, device_type_id: str) -> FakeType | None:
        key = self.types.get(device_type_id)
        return None if key is None else FakeType(device_type_id, key)


@dataclass
class FakeCluster:
    """ResourceQuotas by (namespace, name), with resourceVersions; `refuse` answers the next write."""

    quotas: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    version: int = 0
    refuse: list[KubeRefused] = field(default_factory=list)
    writes: int = 0
    list_refused: KubeRefused | None = None

    def put(self, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        self.version += 1
        stored = copy.deepcopy(body)
        stored["metadata"]["resourceVersion"] = str(self.version)
        self.quotas[(namespace, stored["metadata"]["name"])] = stored
        return copy.deepcopy(stored)

    def write(self) -> None:
        self.writes += 1
        if self.refuse:
            raise self.refuse.pop(0)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        async def get(_c: ClusterGateway, namespace: str, name: str) -> dict[str, Any] | None:
            found = self.quotas.get((namespace, name))
            return copy.deepcopy(found) if found is not None else None

        async def listed(_c: ClusterGateway, namespace: str) -> list[dict[str, Any]]:
            if self.list_refused is not None:
                raise self.list_refused
            return [copy.deepcopy(q) for (ns, _), q in sorted(self.quotas.items()) if ns == namespace]

        async def create(_c: ClusterGateway, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
            self.write()
            if (namespace, body["metadata"]["name"]) in self.quotas:
                raise KubeRefused(409, "AlreadyExists", "exists")
            return self.put(namespace, body)

        async def replace(
            _c: ClusterGateway, namespace: str, name: str, body: dict[str, Any]
        ) -> dict[str, Any]:
            self.write()
            held = self.quotas[(namespace, name)]["metadata"]["resourceVersion"]
            if body["metadata"].get("resourceVersion") != held:
                raise KubeRefused(409, "Conflict", "the object has been modified")
            return self.put(namespace, body)

        async def delete(_c: ClusterGateway, namespace: str, name: str) -> bool:
            self.write()
            return self.quotas.pop((namespace, name), None) is not None

        for name, fake in (
            ("get_resource_quota", get),
            ("list_resource_quotas", listed),
            ("create_resource_quota", create),
            ("replace_resource_quota", replace),
            ("delete_resource_quota", delete),
        ):
            monkeypatch.setattr(quotas_module, name, fake)

        async def namespace(_c: ClusterGateway, name: str) -> dict[str, Any] | None:
            if name not in ("team-a", "team-b"):
                return None
            return {
                "metadata": {
                    "name": name,
                    "labels": {PROJECT: name},
                    "annotations": {MEMBERS_ANNOTATION: '["alice"]'},
                }
            }

        async def namespaces(_c: ClusterGateway, *, label_selector: str) -> list[dict[str, Any]]:
            return [ns for ns in [await namespace(_c, "team-a"), await namespace(_c, "team-b")] if ns]

        monkeypatch.setattr(projects_module, "get_namespace", namespace)
        monkeypatch.setattr(projects_module, "list_namespaces", namespaces)


@dataclass
class World:
    service: QuotaService
    cluster: FakeCluster
    catalog: FakeCatalog
    database: Database

    async def audit(self) -> list[tuple[str, str, Any, Any]]:
        async with self.database.session() as session:
            rows = await AuditRepository(session).list(target_kind="project-quota")
        return [(r.action, r.target_id, r.before, r.after) for r in reversed(rows)]


@pytest.fixture
async def world(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[World]:
    cluster = FakeCluster()
    cluster.install(monkeypatch)
    engine = create_async_engine(MEMORY_DATABASE)
    database = Database(engine)
    await database.upgrade()
    projects = ProjectService(ClusterGateway(None), database)
    catalog = FakeCatalog()
    service = QuotaService(ClusterGateway(None), projects, cast(DeviceCatalog, catalog))
    yield World(service, cluster, catalog, database)
    await engine.dispose()


async def test_an_admin_writes_one_quota_read_back_by_members_and_audited_once(world: World) -> None:
    spec = QuotaSpec(devices={"lpu": 4}, storage="100Gi", pods=20)
    written = await world.service.replace(ADMIN, "team-a", spec)
    stored = world.cluster.quotas[("team-a", QUOTA_NAME)]
    assert stored["spec"]["hard"] == {LPU: "4", "requests.storage": "100Gi", "pods": "20"}
    assert [(d.device_type, d.resource_key, d.hard, d.used) for d in written.devices] == [
        ("lpu", "hyperaccel.ai/lpu", 4, 0)
    ]
    # The quota controller counts; a member reads its figures back.
    stored["status"] = {"used": {LPU: "2", "pods": "2", "requests.storage": "10Gi"}}
    read = await world.service.read(ALICE, "team-a")
    assert read.devices[0].used == 2 and read.pods is not None and read.pods.used == "2"
    assert read.storage is not None and (read.storage.hard, read.storage.used) == ("100Gi", "10Gi")
    # The same quota again changes nothing and records nothing.
    await world.service.replace(ADMIN, "team-a", spec)
    lowered = QuotaSpec(devices={"lpu": 2})
    await world.service.replace(ADMIN, "team-a", lowered)
    keys = {"lpu": "hyperaccel.ai/lpu"}
    after_first = {"devices": {"lpu": 4}, "resource_keys": keys, "storage": "100Gi", "pods": 20}
    after_second = {"devices": {"lpu": 2}, "resource_keys": keys, "storage": None, "pods": None}
    assert await world.audit() == [
        ("project.quota.set", "team-a", None, after_first),
        ("project.quota.set", "team-a", after_first, after_second),
    ]
    # An empty quota removes the object.
    await world.service.replace(ADMIN, "team-a", QuotaSpec())
    assert ("team-a", QUOTA_NAME) not in world.cluster.quotas


async def test_only_admins_write_and_only_members_read(world: World) -> None:
    with pytest.raises(Forbidden):
        await world.service.replace(ALICE, "team-a", QuotaSpec(pods=1))
    with pytest.raises(Unauthorized):
        await world.service.replace(None, "team-a", QuotaSpec(pods=1))
    with pytest.raises(Unauthorized):
        await world.service.read(None, "team-a")
    with pytest.raises(NotFound):
        await world.service.replace(ADMIN, "absent", QuotaSpec(pods=1))
    assert world.cluster.writes == 0 and await world.audit() == []


async def test_an_unknown_type_is_refused_naming_its_entry_before_anything_is_written(world: World) -> None:
    with pytest.raises(ValidationFailed) as refused:
        await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 1, "tpu": 2}))
    assert (refused.value.code, refused.value.field) == ("quota.unknown_type", "devices.tpu")
    assert world.cluster.writes == 0


async def test_a_refused_write_leaves_the_quota_as_it_was_and_unaudited(world: World) -> None:
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 4}))
    world.cluster.refuse.append(KubeRefused(422, "Invalid", "spec.hard: Invalid value"))
    with pytest.raises(ValidationFailed):
        await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 8}))
    assert world.cluster.quotas[("team-a", QUOTA_NAME)]["spec"]["hard"] == {LPU: "4"}
    assert len(await world.audit()) == 1


async def test_a_concurrent_change_is_read_again_and_the_write_lands(world: World) -> None:
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 4}))
    world.cluster.refuse.append(KubeRefused(409, "Conflict", "the object has been modified"))
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 6}))
    assert world.cluster.quotas[("team-a", QUOTA_NAME)]["spec"]["hard"] == {LPU: "6"}


async def test_room_counts_every_quota_of_the_namespace(world: World) -> None:
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 4}))
    world.cluster.quotas[("team-a", QUOTA_NAME)]["status"] = {"used": {LPU: "3"}}
    await world.service.check_room("team-a", "hyperaccel.ai/lpu", 1, field="accelerator.count")
    with pytest.raises(ValidationFailed) as refused:
        await world.service.check_room("team-a", "hyperaccel.ai/lpu", 2, field="accelerator.count")
    assert refused.value.field == "accelerator.count"
    assert {key: refused.value.own_params[key] for key in FIGURES} == {
        "project": "team-a",
        "quota": QUOTA_NAME,
        "resource_key": "hyperaccel.ai/lpu",
        "hard": 4,
        "used": 3,
        "requested": 2,
        "room": 1,
    }
    # Someone else's quota counts as admission counts it.
    world.cluster.put("team-a", {"metadata": {"name": "ops-cap"}, "spec": {"hard": {LPU: "3"}}})
    world.cluster.quotas[("team-a", "ops-cap")]["status"] = {"used": {LPU: "3"}}
    with pytest.raises(ValidationFailed) as refused:
        await world.service.check_room("team-a", "hyperaccel.ai/lpu", 1, field="accelerator.count")
    assert refused.value.params["quota"] == "ops-cap"


async def test_storage_and_pods_are_counted_like_devices_naming_each_its_field(world: World) -> None:
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 4}, storage="10Gi", pods=3))
    world.cluster.quotas[("team-a", QUOTA_NAME)]["status"] = {
        "used": {LPU: "1", "requests.storage": "8Gi", "pods": "2"}
    }
    fitting = [
        devices_demand("hyperaccel.ai/lpu", 1, "accelerator.count"),
        storage_demand(2, "storage_gib"),
        pods_demand(1, "replicas"),
    ]
    await world.service.check_demands("team-a", fitting)
    with pytest.raises(ValidationFailed) as refused:
        await world.service.check_demands("team-a", [fitting[0], storage_demand(4, "storage_gib")])
    assert refused.value.field == "storage_gib"
    assert {key: refused.value.own_params[key] for key in FIGURES} == {
        "project": "team-a",
        "quota": QUOTA_NAME,
        "resource_key": "storage",
        "hard": "10Gi",
        "used": "8Gi",
        "requested": "4Gi",
        "room": "2Gi",
    }
    with pytest.raises(ValidationFailed) as refused:
        await world.service.check_demands("team-a", [*fitting[:2], pods_demand(2, "replicas")])
    assert refused.value.field == "replicas"
    assert (refused.value.params["resource_key"], refused.value.params["room"]) == ("pods", 1)
    # Nothing asked, nothing read.
    await world.service.check_demands(
        "team-a", [pods_demand(0, "replicas"), storage_demand(0, "storage_gib")]
    )


async def test_a_key_edit_moves_the_entry_and_a_deletion_removes_it(world: World) -> None:
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 4, "gpu": 1}, pods=9))
    await world.service.replace(ADMIN, "team-b", QuotaSpec(devices={"gpu": 2}))
    world.catalog.types["lpu"] = "hyperaccel.ai/lpu-v2"
    await world.service.follow_type("lpu")
    assert world.cluster.quotas[("team-a", QUOTA_NAME)]["spec"]["hard"] == {
        "requests.hyperaccel.ai/lpu-v2": "4",
        "requests.nvidia.com/gpu": "1",
        "pods": "9",
    }
    assert world.cluster.quotas[("team-b", QUOTA_NAME)]["spec"]["hard"] == {"requests.nvidia.com/gpu": "2"}
    del world.catalog.types["gpu"]
    await world.service.follow_type("gpu")
    assert world.cluster.quotas[("team-a", QUOTA_NAME)]["spec"]["hard"] == {
        "requests.hyperaccel.ai/lpu-v2": "4",
        "pods": "9",
    }
    assert ("team-b", QUOTA_NAME) not in world.cluster.quotas
    actions = [(action, target) for action, target, _, _ in await world.audit()]
    assert actions[2:] == [
        ("project.quota.follow_type", "team-a"),
        ("project.quota.follow_type", "team-a"),
        ("project.quota.follow_type", "team-b"),
    ]


async def test_the_catalogs_change_notice_is_followed_after_it_returns(world: World) -> None:
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 4}))
    world.catalog.types["lpu"] = "hyperaccel.ai/lpu-v2"
    events = Events(Parts(monitoring=_IGNORED, quotas=world.service, rules=_IGNORED, labs=_IGNORED))
    # The catalog publishes its change synchronously, before answering the edit.
    events.publish(DeviceTypeChanged("lpu"))
    assert world.cluster.quotas[("team-a", QUOTA_NAME)]["spec"]["hard"] == {LPU: "4"}
    await events.wait_following()
    assert world.cluster.quotas[("team-a", QUOTA_NAME)]["spec"]["hard"] == {
        "requests.hyperaccel.ai/lpu-v2": "4"
    }


async def test_quotas_nufi_may_not_read_leave_the_check_to_admission(world: World) -> None:
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 0}))
    world.cluster.list_refused = KubeRefused(403, "Forbidden", "cannot list resourcequotas")
    await world.service.check_room("team-a", "hyperaccel.ai/lpu", 1, field="accelerator.count")
    world.cluster.list_refused = KubeRefused(500, "InternalError", "etcd")
    with pytest.raises(NufiError):
        await world.service.check_room("team-a", "hyperaccel.ai/lpu", 1, field="accelerator.count")


async def test_a_new_project_gets_the_defaults_and_a_crashed_create_gets_them_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deleted: list[str] = []

    async def create_namespace(_c: ClusterGateway, body: dict[str, Any]) -> dict[str, Any]:
        return body

    async def delete_namespace(_c: ClusterGateway, name: str) -> bool:
        deleted.append(name)
        return True

    monkeypatch.setattr(projects_module, "create_namespace", create_namespace)
    monkeypatch.setattr(projects_module, "delete_namespace", delete_namespace)
    projects = ProjectService(ClusterGateway(None), world.database)
    defaults = QuotaSpec(devices={"lpu": 3, "registered-later": 1}, pods=10)
    QuotaService(ClusterGateway(None), projects, cast(DeviceCatalog, world.catalog), defaults=defaults)
    await projects.create(ADMIN, "team-c", ["alice"])
    # The type the catalog does not have is left out rather than refusing the project.
    assert world.cluster.quotas[("team-c", QUOTA_NAME)]["spec"]["hard"] == {LPU: "3", "pods": "10"}

    # A quota the cluster refuses undoes the project.
    world.cluster.refuse.append(KubeRefused(403, "Forbidden", "resourcequotas is forbidden"))
    with pytest.raises(NufiError):
        await projects.create(ADMIN, "team-d", [])
    assert deleted == ["team-d"] and ("team-d", QUOTA_NAME) not in world.cluster.quotas

    # Finishing a create a crash interrupted writes the defaults only where no quota is yet.
    await world.service.replace(ADMIN, "team-a", QuotaSpec(devices={"lpu": 1}))
    for project in ("team-a", "team-b"):
        intent = Intent(
            0, datetime.now(UTC), "root", "project.create", "project", project, None, None, None, "x"
        )
        assert (await projects.recorder.settlers["project"](intent)).done
    assert world.cluster.quotas[("team-a", QUOTA_NAME)]["spec"]["hard"] == {LPU: "1"}
    assert world.cluster.quotas[("team-b", QUOTA_NAME)]["spec"]["hard"] == {LPU: "3", "pods": "10"}


class _Ignores:
    """The other subscribers of a type's change, which these tests do not watch."""

    def type_changed(self, _device_type_id: str) -> None:
        pass

    def changed(self, _device_type_id: str = "") -> None:
        pass


_IGNORED: Any = _Ignores()
