"""The device catalog service: official presets merged with the admins' custom types and overrides.

Every call reads the database, so a type saved on one replica is served by the next request on every
replica. Inventories come from the types' fetchers, over one read of the cluster per request. Writes
and their audit records share one transaction: both are stored, or neither.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nufi.auth import Principal, require_admin, require_user
from nufi.cluster import ClusterReader
from nufi.db import AuditRepository, Database, DeviceTypeRepository, DeviceTypeRow
from nufi.devices.audit import AuditPage, audit_page
from nufi.devices.capacity import Inventory
from nufi.devices.checks import (
    MetricsCheck,
    ResourceKeyCheck,
    check_metrics,
    check_resource_key,
    enforce_query_bounds,
    registered_by,
)
from nufi.devices.fetcher_registry import FetcherRegistry, UnknownFetcher
from nufi.devices.metric_checks import FIELD_OF
from nufi.devices.plan import (
    TARGET_KIND,
    LiveChecks,
    SavePlan,
    commit_plan,
    refuse_identity_change,
    refuse_in_use,
    refuse_new_id,
    refuse_official_key,
    refuse_taken_key,
    stale_revision,
    validated_type,
)
from nufi.devices.presets import official_preset, official_presets
from nufi.devices.said import said_of_error
from nufi.devices.spec import (
    GENERIC_FETCHER,
    DeviceType,
    DeviceTypeCreate,
    DeviceTypeUpdate,
    LabelsDraft,
    MetricKey,
    MetricsDraft,
)
from nufi.devices.stored import UnreadableDeviceType, audit_before, audit_view, custom_type, overlay, resolve
from nufi.devices.usage import DeviceTypeUsage
from nufi.errors import Conflict, DependencyUnavailable, NotFound, ValidationFailed
from nufi.logging import get_logger
from nufi.messages import Message
from nufi.prom import PrometheusGateway

_log = get_logger("nufi.devices.catalog")


@dataclass(frozen=True)
class CatalogEntry:
    """A device type with what the cluster holds of it; `inventory` is None, and `inventory_error`
    says why (in English; `inventory_problem` is the same as a message for a face to word), when the
    cluster cannot be read or the type's fetcher is not installed. The catalog stays readable either way."""

    device_type: DeviceType
    inventory: Inventory | None
    inventory_error: str | None = None
    inventory_problem: Message | None = None


@dataclass(frozen=True)
class SaveOutcome:
    """A saved type and the check warnings its save passed over, in English and as `{code, params}`."""

    device_type: DeviceType
    warnings: list[str]
    warning_messages: list[dict[str, Any]] = dataclasses.field(default_factory=list)


class DeviceCatalog:
    def __init__(
        self,
        db: Database,
        cluster: ClusterReader,
        prometheus: PrometheusGateway,
        fetchers: FetcherRegistry,
        *,
        usage: DeviceTypeUsage | None = None,
    ) -> None:
        self._db = db
        # Where the wizard's checks and the inventories read from.
        self._live = LiveChecks(cluster, prometheus, fetchers)
        # Consulted before a delete or a key change: a type that workloads hold cannot go from under them.
        self._usage = usage
        self._listeners: list[Callable[[str], None]] = []

    def on_change(self, listener: Callable[[str], None]) -> None:
        """Call `listener(device_type_id)` after every create, edit, reset or delete this replica
        commits, before the change is answered: readers that remember types forget that one."""
        self._listeners.append(listener)

    def _changed(self, device_type_id: str) -> None:
        for listener in self._listeners:
            listener(device_type_id)

    # -- reads ---------------------------------------------------------------------------------------

    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]:
        require_user(principal)
        async with self._db.session() as session:
            rows = {row.id: row for row in await DeviceTypeRepository(session).list()}
        merged = [_readable_official(preset, rows.pop(preset.id, None)) for preset in official_presets()]
        for row in rows.values():
            if row.kind == "custom":
                try:
                    merged.append(custom_type(row))
                except UnreadableDeviceType as exc:
                    # One bad row must not take the whole catalog down; `get` explains it.
                    _log.warning("device type left out of the catalog", reason=exc.detail)
        merged.sort(key=lambda t: (t.kind != "official", t.id))
        return [t for t in merged if t.enabled] if enabled_only else merged

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        require_user(principal)
        async with self._db.session() as session:
            row = await DeviceTypeRepository(session).get(device_type_id)
        return resolve(device_type_id, row)

    async def find(self, device_type_id: str) -> DeviceType | None:
        """The type with that id, or None; for services that have authorised their caller already."""
        try:
            async with self._db.session() as session:
                row = await DeviceTypeRepository(session).get(device_type_id)
            return resolve(device_type_id, row)
        except (NotFound, UnreadableDeviceType):
            return None

    async def list_with_inventory(
        self, principal: Principal | None, *, enabled: bool | None = None
    ) -> builtins.list[CatalogEntry]:
        """Every type (only enabled or only disabled ones when `enabled` is set), each with the
        inventory its fetcher computes from one read of the cluster."""
        types = await self.list(principal)
        if enabled is not None:
            types = [t for t in types if t.enabled is enabled]
        return await self._with_inventory(types)

    async def get_with_inventory(self, principal: Principal | None, device_type_id: str) -> CatalogEntry:
        (entry,) = await self._with_inventory([await self.get(principal, device_type_id)])
        return entry

    # -- checks (the wizard's steps) -----------------------------------------------------------------

    async def check_resource_key(
        self, principal: Principal | None, resource_key: str, *, editing: str | None = None
    ) -> ResourceKeyCheck:
        require_admin(principal)
        result = await check_resource_key(resource_key, self._live.cluster)
        if not result.valid:
            raise ValidationFailed(
                code="resource_key.invalid",
                params=result.params,
                field="resource_key",
                problems=result.problems,
            )
        owner = registered_by(resource_key, await self.list(principal), editing=editing)
        return result.model_copy(update={"registered_by": owner})

    async def check_metrics(
        self,
        principal: Principal | None,
        labels: LabelsDraft,
        metrics: MetricsDraft,
        *,
        fetcher: str = GENERIC_FETCHER,
        fields: Mapping[MetricKey, str] = FIELD_OF,
    ) -> MetricsCheck:
        require_admin(principal)
        usable = self._live.fetchers.get(fetcher).usable
        # What the expressions may cost Prometheus is checked before any of them runs.
        await self.check_query_bounds(principal, metrics, fields=fields)
        return await check_metrics(labels, metrics, self._live.prometheus, usable=usable)

    async def check_query_bounds(
        self,
        principal: Principal | None,
        metrics: MetricsDraft,
        *,
        fields: Mapping[MetricKey, str] = FIELD_OF,
    ) -> None:
        """Refuse (422 naming the field in `fields`) an admin's expression beyond the admin query bounds,
        before anything runs it: for every caller that replays or saves an admin's PromQL."""
        require_admin(principal)
        prometheus = self._live.prometheus
        await enforce_query_bounds(metrics, prometheus, prometheus.admin_limits, fields=fields)

    # -- writes: plan, then commit -------------------------------------------------------------------

    async def plan_create(
        self,
        principal: Principal | None,
        payload: DeviceTypeCreate,
        *,
        force: bool = False,
        live: bool = True,
    ) -> SavePlan:
        """Every refusal of registering `payload`, then (with `live`) the live checks; writes nothing."""
        admin = require_admin(principal)
        refuse_new_id(payload.id, official_preset(payload.id))
        refuse_official_key(payload.resource_key)
        device_type = validated_type({**payload.model_dump(), "kind": "custom", "revision": 1})
        await self._refuse_taken(admin, device_type, new=True)
        plan = SavePlan("device_type.create", device_type.id, admin.username, None, device_type)
        return await self.live_checked(plan, force=force) if live else plan

    async def plan_update(
        self,
        principal: Principal | None,
        device_type_id: str,
        payload: DeviceTypeUpdate,
        *,
        force: bool = False,
        live: bool = True,
    ) -> SavePlan:
        """Every refusal of changing the type to `payload`, then (with `live`) the live checks."""
        admin = require_admin(principal)
        async with self._db.session() as session:
            current = resolve(device_type_id, await DeviceTypeRepository(session).get(device_type_id))
        if payload.revision != current.revision:
            raise stale_revision(device_type_id, current.revision, payload.revision)
        wanted = payload.model_dump(exclude={"revision"})
        if current.kind == "official":
            refuse_identity_change(current, wanted)
        else:
            refuse_official_key(payload.resource_key)
        updated = validated_type(
            {**wanted, "id": current.id, "kind": current.kind, "revision": current.revision + 1}
        )
        await self._refuse_taken(admin, updated, new=False)
        if updated.resource_key != current.resource_key:
            refuse_in_use(current.id, await self._users(current.id), field="resource_key")
        # An official type's row holds its revision less one (the preset alone is revision 1); its
        # first edit inserts that row.
        official = current.kind == "official"
        stored: int | None = current.revision - 1 if official else current.revision
        if official and current.revision == 1:
            stored = None
        plan = SavePlan(
            "device_type.update", current.id, admin.username, current, updated, audit_view(current), stored
        )
        return await self.live_checked(plan, force=force) if live else plan

    async def plan_delete(
        self, principal: Principal | None, device_type_id: str, *, revision: int | None = None
    ) -> SavePlan:
        """Every refusal of deleting the type (official, in use by workloads, absent, stale)."""
        admin = require_admin(principal)
        if official_preset(device_type_id) is not None:
            raise Conflict(code="device_type.official_undeletable", device_type=device_type_id)
        refuse_in_use(device_type_id, await self._users(device_type_id))
        async with self._db.session() as session:
            row = await DeviceTypeRepository(session).get(device_type_id)
        if row is None:
            raise NotFound(code="device_type.not_found", device_type=device_type_id)
        if revision is not None and row.revision != revision:
            raise stale_revision(device_type_id, row.revision, revision)
        before = audit_before(row, None)
        return SavePlan("device_type.delete", device_type_id, admin.username, None, None, before, revision)

    async def live_checked(self, plan: SavePlan, *, force: bool = False) -> SavePlan:
        """The plan with the results of the wizard's checks of the type it saves (once per plan)."""
        return await self._live.of_save(plan, force=force)

    async def commit(self, plan: SavePlan) -> None:
        """Write the plan and its audit record in one transaction, then tell this replica's readers."""
        await commit_plan(self._db, plan)
        self._changed(plan.device_type_id)

    async def create(
        self, principal: Principal | None, payload: DeviceTypeCreate, *, force: bool = False
    ) -> SaveOutcome:
        return await self._saved(await self.plan_create(principal, payload, force=force))

    async def update(
        self,
        principal: Principal | None,
        device_type_id: str,
        payload: DeviceTypeUpdate,
        *,
        force: bool = False,
    ) -> SaveOutcome:
        return await self._saved(await self.plan_update(principal, device_type_id, payload, force=force))

    async def delete(
        self, principal: Principal | None, device_type_id: str, *, revision: int | None = None
    ) -> None:
        await self.commit(await self.plan_delete(principal, device_type_id, revision=revision))

    async def reset(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        """Drop an admin's overrides of an official type, back to the built-in preset."""
        principal = require_admin(principal)
        preset = official_preset(device_type_id)
        if preset is None:
            raise NotFound(code="device_type.no_official", device_type=device_type_id)
        async with self._db.transaction() as session:
            repo = DeviceTypeRepository(session)
            row = await repo.get(device_type_id)
            if row is not None:
                await repo.delete(device_type_id)
                await AuditRepository(session).record(
                    principal.username,
                    "device_type.reset",
                    TARGET_KIND,
                    device_type_id,
                    before=audit_before(row, preset),
                    after=audit_view(preset),
                )
        self._changed(device_type_id)
        return preset

    async def audit(
        self,
        principal: Principal | None,
        *,
        limit: int = 100,
        offset: int = 0,
        target_id: str | None = None,
        actor: str | None = None,
    ) -> AuditPage:
        require_admin(principal)
        async with self._db.session() as session:
            repo = AuditRepository(session)
            items = await repo.list(limit, offset, target_id=target_id, actor=actor)
            total = await repo.count(target_id=target_id, actor=actor)
        return audit_page(items, total)

    # -- internals -----------------------------------------------------------------------------------

    async def _with_inventory(self, types: Sequence[DeviceType]) -> builtins.list[CatalogEntry]:
        try:
            state = await self._live.cluster.state()
        except DependencyUnavailable as exc:
            return [CatalogEntry(t, None, exc.detail, said_of_error(exc)) for t in types]
        entries = []
        for device_type in types:
            try:
                fetcher = self._live.fetchers.for_type(device_type)
            except UnknownFetcher as exc:
                entries.append(CatalogEntry(device_type, None, exc.detail, said_of_error(exc)))
                continue
            entries.append(CatalogEntry(device_type, fetcher.inventory(device_type, state)))
        return entries

    async def _refuse_taken(self, admin: Principal, device_type: DeviceType, *, new: bool) -> None:
        """The database's refusals of a taken id or resource key, known before anything is written."""
        types = await self.list(admin)
        if new and any(t.id == device_type.id for t in types):
            raise Conflict(code="db.device_type_id_taken", field="id", device_type=device_type.id)
        refuse_taken_key(device_type, types)

    async def _users(self, device_type_id: str) -> builtins.list[str]:
        return [] if self._usage is None else await self._usage.users_of(device_type_id)

    async def _saved(self, plan: SavePlan) -> SaveOutcome:
        await self.commit(plan)
        assert plan.after is not None
        return SaveOutcome(plan.after, plan.warnings, plan.warning_messages)


def _readable_official(preset: DeviceType, row: DeviceTypeRow | None) -> DeviceType:
    try:
        return overlay(preset, row)
    except UnreadableDeviceType as exc:
        # The vendor's preset still describes the hardware; the admins' overrides wait for a reset.
        _log.warning("official device type served as its preset", reason=exc.detail)
        return preset
