"""Accelerator quotas per project: one Kubernetes ResourceQuota, `nufi-accelerators`, per project.

The cluster enforces it (quota admission refuses a pod that would exceed it, whoever creates the pod,
kubectl users too); NuFi writes it, reads its `status.used` back, and refuses up front what admission
would refuse (`check_room`, counting every ResourceQuota of the namespace). The quota holds, per
device type, `requests.<resource key>` (the only form Kubernetes allows for extended resources),
and optionally `requests.storage` and `pods`. Which entry is which type is kept in an annotation, so
a type's key edit moves its entry and a type's deletion removes it (`follow_type`, run after each
change of a type as a follow-up of `nufi.events.DeviceTypeChanged`).

Admins write (`replace`), members and admins read. Every write is an intent turned into an audit
record (`project.quota.set`, target kind `project-quota`); one ResourceQuota write is all-or-nothing,
so a failure leaves the cluster as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from nufi.auth import DEFAULT_ADMIN_ROLE, Principal, require_admin
from nufi.cluster import ClusterGateway
from nufi.cluster.kube_rest import Json
from nufi.cluster.quota_exceeded import resource_word
from nufi.cluster.resource_quotas import (
    create_resource_quota,
    delete_resource_quota,
    get_resource_quota,
    list_named_resource_quotas,
    list_resource_quotas,
    replace_resource_quota,
)
from nufi.cluster.resources import quantity_to_int
from nufi.cluster.workload_apply import refused_as
from nufi.db.intents import Intent
from nufi.devices.catalog import DeviceCatalog
from nufi.errors import Conflict, NotFound, NufiError, ValidationFailed
from nufi.logging import get_logger
from nufi.messages import Message
from nufi.workloads.intents import Outcome
from nufi.workloads.labels import MANAGED_BY, MANAGED_BY_NUFI
from nufi.workloads.projects.service import ProjectService
from nufi.workloads.quotas.room import (
    PODS,
    QUOTA_NAME,
    STORAGE,
    Demand,
    QuotaSpec,
    device_resource,
    devices_demand,
    exceeded,
    no_room,
    quota_manifest,
    spec_of,
    written_types,
)

TARGET_KIND = "project-quota"
_log = get_logger("nufi.workloads.quotas")
# Given NuFi's quota as read (or None): the spec to write and each type's key; None: nothing to do.
_Plan = Callable[[Json | None], "tuple[QuotaSpec, dict[str, str]] | None"]
_CONFLICT_RETRIES = 5
# Who a quota change follows a device type's edit as: the catalog tells which type, not who edited it.
SYSTEM = Principal(subject="nufi", username="nufi", roles=frozenset({DEFAULT_ADMIN_ROLE}))
DEVICES_FIELD = "devices"


def device_field(type_id: str) -> str:
    """The field a refusal of one type's limit names (`devices.lpu`), as the API's body and the
    dashboard's editor spell it; built from a constant so it is not mistaken for a catalog key."""
    return f"{DEVICES_FIELD}.{type_id}"


@dataclass(frozen=True)
class DeviceQuota:
    device_type: str
    resource_key: str
    hard: int
    used: int


@dataclass(frozen=True)
class Figure:
    hard: str
    used: str


@dataclass(frozen=True)
class ProjectQuota:
    """NuFi's quota of a project as the cluster holds it; no entries when it has none."""

    project: str
    devices: tuple[DeviceQuota, ...]
    storage: Figure | None
    pods: Figure | None


class QuotaService:
    def __init__(
        self,
        cluster: ClusterGateway,
        projects: ProjectService,
        catalog: DeviceCatalog,
        *,
        defaults: QuotaSpec | None = None,
    ) -> None:
        self._cluster = cluster
        self._projects = projects
        self._catalog = catalog
        self._defaults = defaults or QuotaSpec()
        self._recorder = projects.recorder
        self._recorder.register(TARGET_KIND, self._settle)
        projects.on_created(self._apply_defaults)

    async def read(self, principal: Principal | None, project: str) -> ProjectQuota:
        await self._projects.require_access(principal, project)
        return _view(project, await self._current(project))

    async def read_many(self, principal: Principal | None, projects: Sequence[str]) -> list[ProjectQuota]:
        """NuFi's quota of each of `projects`, in their order, for an admin: one list of NuFi's quotas
        across the cluster, so a page of many projects costs one read, not one per project."""
        require_admin(principal)
        listed = await list_named_resource_quotas(
            self._cluster, QUOTA_NAME, label_selector=f"{MANAGED_BY}={MANAGED_BY_NUFI}"
        )
        by_project = {(quota.get("metadata") or {}).get("namespace"): quota for quota in listed}
        return [_view(project, by_project.get(project)) for project in projects]

    async def replace(self, principal: Principal | None, project: str, spec: QuotaSpec) -> ProjectQuota:
        """Make NuFi's quota of the project exactly `spec` (an empty spec deletes it); idempotent."""
        admin = require_admin(principal)
        await self._projects.require_access(admin, project)
        keys = await self._keys(spec)
        return await self._write(admin, project, lambda _current: (spec, keys), "project.quota.set")

    async def check_room(self, project: str, resource_key: str, more: int, *, field: str) -> None:
        """Refuse (422 naming `field`) `more` devices of `resource_key` that some ResourceQuota of the
        namespace has no room for, as admission would refuse their pods."""
        await self.check_demands(project, [devices_demand(resource_key, more, field)])

    async def check_demands(self, project: str, demands: Sequence[Demand]) -> None:
        """Refuse (422 `quota.exceeded` naming the demand's field and the room left) the first demand
        some ResourceQuota of the namespace has no room for, as admission would refuse the objects
        asking for it (devices and pods for a pod, storage for a claim), before anything is written."""
        wanted = [demand for demand in demands if demand.amount > 0]
        if not wanted:
            return
        quotas = await self.namespace_quotas(project)
        for demand in wanted:
            limit = exceeded(quotas, demand.resource, demand.amount)
            if limit is not None:
                raise no_room(project, limit, demand)

    async def shortage(self, project: str, resource_key: str, more: int) -> Message | None:
        """Why `more` devices of `resource_key` cannot be admitted now, in the words a deployment the
        cluster refused gets (`workload.quota_exceeded`); None when every quota has room."""
        limit = exceeded(await self.namespace_quotas(project), device_resource(resource_key), more)
        if limit is None:
            return None
        return Message(
            "workload.quota_exceeded",
            {
                "quota": limit.quota,
                "resource": resource_key,
                "what": resource_word(device_resource(resource_key)),
                "limit": str(limit.hard),
                "used": str(limit.used),
            },
        )

    async def namespace_quotas(self, project: str) -> list[Json]:
        """Every ResourceQuota of the project's namespace, NuFi's and anyone else's; none when NuFi may
        not read them there (a namespace bound to an older workload role): admission still enforces
        them, so the up-front check is skipped rather than every workload refused."""
        try:
            with refused_as(forbidden=lambda said: _Unreadable(said.message)):
                return await list_resource_quotas(self._cluster, project)
        except _Unreadable as exc:
            _log.warning("quotas not readable; checked by admission only", project=project, error=str(exc))
            return []

    # -- device type edits ---------------------------------------------------------------------------

    async def follow_type(self, device_type_id: str) -> None:
        """Move the type's entry to its current resource key in every NuFi quota that has it, or
        remove it when the type is gone. A project that cannot be rewritten now is logged and keeps
        its entry (the next edit of the type, or an admin's PUT, rewrites it)."""
        device_type = await self._catalog.find(device_type_id)
        key = None if device_type is None else device_type.resource_key
        for project in await self._projects.visible_projects(SYSTEM):
            try:
                await self._write(
                    SYSTEM,
                    project.name,
                    lambda current: _followed(current, device_type_id, key),
                    "project.quota.follow_type",
                )
            except NufiError as exc:
                _log.warning("quota not rewritten", project=project.name, type=device_type_id, error=str(exc))

    # -- internals -----------------------------------------------------------------------------------

    async def _apply_defaults(self, admin: Principal, project: str) -> None:
        """Write the configured defaults into a new project that has no quota of NuFi's yet; types not
        (yet) in the catalog are left out and logged, so such a default never blocks creating projects."""
        if self._defaults.empty:
            return
        keys: dict[str, str] = {}
        for type_id in self._defaults.devices:
            found = await self._catalog.find(type_id)
            if found is None:
                _log.warning("default quota names an unknown device type", type=type_id, project=project)
                continue
            keys[type_id] = found.resource_key
        spec = QuotaSpec(
            devices={t: n for t, n in self._defaults.devices.items() if t in keys},
            storage=self._defaults.storage,
            pods=self._defaults.pods,
        )
        # Only where there is none yet: a crashed create is finished later, maybe after an admin's PUT.
        await self._write(
            admin, project, lambda current: None if current else (spec, keys), "project.quota.set"
        )

    async def _keys(self, spec: QuotaSpec) -> dict[str, str]:
        keys: dict[str, str] = {}
        for type_id in sorted(spec.devices):
            found = await self._catalog.find(type_id)
            if found is None:
                raise ValidationFailed(
                    code="quota.unknown_type", field=device_field(type_id), params={"device_type": type_id}
                )
            shared = next((other for other, key in keys.items() if key == found.resource_key), None)
            if shared is not None:
                raise ValidationFailed(
                    code="quota.shared_key",
                    field=device_field(type_id),
                    params={"device_type": type_id, "other": shared, "resource_key": found.resource_key},
                )
            keys[type_id] = found.resource_key
        return keys

    async def _write(self, admin: Principal, project: str, plan: _Plan, action: str) -> ProjectQuota:
        """Read NuFi's quota, plan the new one from it, write it with the read's resourceVersion (a
        concurrent change is a 409, read again and planned again), audited."""
        for _ in range(_CONFLICT_RETRIES):
            current = await self._current(project)
            planned = plan(current)
            if planned is None:
                return _view(project, current)
            spec, keys = planned
            before = None if current is None else _spec_data(spec_of(current), written_types(current))
            after = _spec_data(spec, keys)
            if before == after or (current is None and spec.empty):
                return _view(project, current)
            gone = NotFound(code="project.not_found", project=project)
            try:
                async with self._recorder.change(
                    admin, action, TARGET_KIND, project, before=before, after=after
                ) as change:
                    change.touched = True
                    # Refused by the API server: the quota is as it was.
                    with refused_as(taken=_Changed(), absent=gone, field="devices", change=change):
                        written = await self._put(project, current, spec, keys)
            except _Changed:
                continue
            return _view(project, written)
        raise Conflict(code="quota.kept_changing", params={"project": project})

    async def _current(self, project: str) -> Json | None:
        with refused_as():
            return await get_resource_quota(self._cluster, project, QUOTA_NAME)

    async def _put(
        self, project: str, current: Json | None, spec: QuotaSpec, keys: dict[str, str]
    ) -> Json | None:
        if spec.empty:
            await delete_resource_quota(self._cluster, project, QUOTA_NAME)
            return None
        body = quota_manifest(project, spec, keys)
        if current is None:
            return await create_resource_quota(self._cluster, project, body)
        body["metadata"]["resourceVersion"] = (current.get("metadata") or {}).get("resourceVersion")
        return await replace_resource_quota(self._cluster, project, QUOTA_NAME, body)

    async def _settle(self, intent: Intent) -> Outcome:
        """A quota change whose request ended before it was recorded: done when the cluster holds it."""
        current = await get_resource_quota(self._cluster, intent.target_id, QUOTA_NAME)
        held = (
            _spec_data(spec_of(current), written_types(current)) if current else _spec_data(QuotaSpec(), {})
        )
        return Outcome.complete(intent.after) if held == intent.after else Outcome.nothing()


class _Unreadable(Exception):
    """NuFi may not read the namespace's quotas (401/403): Kubernetes' words."""


class _Changed(Exception):
    """The quota changed since it was read (a 409 on its write): read it again and plan again."""


def _followed(
    current: Json | None, device_type_id: str, key: str | None
) -> tuple[QuotaSpec, dict[str, str]] | None:
    if current is None:
        return None
    keys = written_types(current)
    if device_type_id not in keys or keys[device_type_id] == key:
        return None
    spec = spec_of(current)
    devices = dict(spec.devices)
    if key is None:
        devices.pop(device_type_id, None)
        del keys[device_type_id]
    else:
        keys[device_type_id] = key
    return QuotaSpec(devices=devices, storage=spec.storage, pods=spec.pods), keys


def _spec_data(spec: QuotaSpec, keys: dict[str, str]) -> dict[str, Any]:
    """A quota as its audit record shows it: devices per type id, and each type's key then."""
    return {
        "devices": dict(sorted(spec.devices.items())),
        "resource_keys": {t: keys[t] for t in sorted(spec.devices)},
        "storage": spec.storage,
        "pods": spec.pods,
    }


def _view(project: str, quota: Json | None) -> ProjectQuota:
    if quota is None:
        return ProjectQuota(project, (), None, None)
    hard = (quota.get("spec") or {}).get("hard") or {}
    used = (quota.get("status") or {}).get("used") or {}
    spec = spec_of(quota)
    keys = written_types(quota)
    devices = tuple(
        DeviceQuota(t, keys[t], n, _count(used.get(device_resource(keys[t]))))
        for t, n in sorted(spec.devices.items())
    )
    return ProjectQuota(project, devices, _figure(hard, used, STORAGE), _figure(hard, used, PODS))


def _figure(hard: dict[str, Any], used: dict[str, Any], resource: str) -> Figure | None:
    if resource not in hard:
        return None
    return Figure(hard=str(hard[resource]), used=str(used.get(resource, "0")))


def _count(text: object) -> int:
    try:
        return quantity_to_int(str(text)) if text is not None else 0
    except ValueError:
        return 0
