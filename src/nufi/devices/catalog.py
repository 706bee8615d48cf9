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

from pydantic import ValidationError

from nufi.auth import Principal, require_admin, require_user
from nufi.cluster import ClusterReader
from nufi.db import (
    AuditRepository,
    Database,
    DeviceTypeDependentsRepository,
    DeviceTypeRepository,
    DeviceTypeRow,
)
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
from nufi.devices.presets import official_preset, official_presets
from nufi.devices.said import said_of_error
from nufi.devices.save_checks import checks_on_save
from nufi.devices.spec import (
    GENERIC_FETCHER,
    DeviceType,
    DeviceTypeCreate,
    DeviceTypeUpdate,
    LabelsDraft,
    MetricKey,
    MetricsDraft,
)
from nufi.devices.stored import (
    UnreadableDeviceType,
    audit_before,
    audit_view,
    custom_type,
    new_row,
    overlay,
    resolve,
    row_values,
)
from nufi.devices.usage import DeviceTypeUsage
from nufi.errors import Conflict, DependencyUnavailable, NotFound, ValidationFailed
from nufi.logging import get_logger
from nufi.messages import Message
from nufi.messages.validation import validation_message
from nufi.prom import PrometheusGateway

TARGET_KIND = "device_type"
_log = get_logger("nufi.devices.catalog")
# Fields an admin may change on an official type; its identity and resource key are the vendor's.
OFFICIAL_EDITABLE = ("enabled", "labels", "metrics", "thermal")
# Ids that would shadow fixed API paths such as /api/v1/monitoring/overview (device packs check them too).
RESERVED_IDS = frozenset({"overview"})


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
        self._cluster = cluster
        self._prometheus = prometheus
        self._fetchers = fetchers
        # Consulted before a delete: a type that workloads hold cannot go from under them.
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
        result = await check_resource_key(resource_key, self._cluster)
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
        usable = self._fetchers.get(fetcher).usable
        # What the expressions may cost Prometheus is checked before any of them runs.
        await self.check_query_bounds(principal, metrics, fields=fields)
        return await check_metrics(labels, metrics, self._prometheus, usable=usable)

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
        await enforce_query_bounds(metrics, self._prometheus, self._prometheus.admin_limits, fields=fields)

    # -- writes --------------------------------------------------------------------------------------

    async def create(
        self, principal: Principal | None, payload: DeviceTypeCreate, *, force: bool = False
    ) -> SaveOutcome:
        principal = require_admin(principal)
        if payload.id in RESERVED_IDS:
            raise ValidationFailed(code="device_type.id_reserved", field="id", params={"id": payload.id})
        if official_preset(payload.id) is not None:
            raise Conflict(code="device_type.id_official", field="id", device_type=payload.id)
        self._refuse_official_key(payload.resource_key)
        device_type = _validated({**payload.model_dump(), "kind": "custom", "revision": 1})
        details = await checks_on_save(
            device_type, self._fetchers.for_type(device_type), self._cluster, self._prometheus, force=force
        )
        async with self._db.transaction() as session:
            await DeviceTypeRepository(session).insert(
                new_row(device_type, "custom"), actor=principal.username
            )
            await AuditRepository(session).record(
                principal.username,
                "device_type.create",
                TARGET_KIND,
                device_type.id,
                after=audit_view(device_type),
                details=details,
            )
        self._changed(device_type.id)
        return SaveOutcome(device_type, details["warnings"], details["warning_messages"])

    async def update(
        self,
        principal: Principal | None,
        device_type_id: str,
        payload: DeviceTypeUpdate,
        *,
        force: bool = False,
    ) -> SaveOutcome:
        principal = require_admin(principal)
        async with self._db.session() as session:
            current = resolve(device_type_id, await DeviceTypeRepository(session).get(device_type_id))
        if payload.revision != current.revision:
            raise _stale(device_type_id, current.revision, payload.revision)
        wanted = payload.model_dump(exclude={"revision"})
        if current.kind == "official":
            _refuse_official_identity_change(current, wanted)
        else:
            self._refuse_official_key(payload.resource_key)
        updated = _validated(
            {**wanted, "id": current.id, "kind": current.kind, "revision": current.revision + 1}
        )
        details = await checks_on_save(
            updated, self._fetchers.for_type(updated), self._cluster, self._prometheus, force=force
        )
        async with self._db.transaction() as session:
            repo = DeviceTypeRepository(session)
            values = row_values(updated)
            if current.kind == "official" and current.revision == 1:
                # The first edit of an official type stores its override row.
                try:
                    await repo.insert(new_row(updated, "official"), actor=principal.username)
                except Conflict:
                    raise _stale(device_type_id, current.revision + 1, payload.revision) from None
            else:
                stored_revision = current.revision - 1 if current.kind == "official" else current.revision
                await repo.update(current.id, stored_revision, values, actor=principal.username)
            await AuditRepository(session).record(
                principal.username,
                "device_type.update",
                TARGET_KIND,
                current.id,
                before=audit_view(current),
                after=audit_view(updated),
                details=details,
            )
        self._changed(current.id)
        return SaveOutcome(updated, details["warnings"], details["warning_messages"])

    async def delete(
        self, principal: Principal | None, device_type_id: str, *, revision: int | None = None
    ) -> None:
        principal = require_admin(principal)
        if official_preset(device_type_id) is not None:
            raise Conflict(code="device_type.official_undeletable", device_type=device_type_id)
        users = [] if self._usage is None else await self._usage.users_of(device_type_id)
        if users:
            raise Conflict(
                code="device_type.in_use",
                params={"count": len(users), "names": ", ".join(users[:20])},
                device_type=device_type_id,
                workloads=users,
            )
        async with self._db.transaction() as session:
            row = await DeviceTypeRepository(session).delete(device_type_id, revision)
            # Its policy, thresholds and history go in the same transaction: a type registered later
            # under this id must not inherit another admin's protection settings or past events.
            removed = await DeviceTypeDependentsRepository(session).remove(device_type_id)
            await AuditRepository(session).record(
                principal.username,
                "device_type.delete",
                TARGET_KIND,
                device_type_id,
                before={**audit_before(row, None), "dependents": removed.audit_view()},
            )
        self._changed(device_type_id)

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
            state = await self._cluster.state()
        except DependencyUnavailable as exc:
            return [CatalogEntry(t, None, exc.detail, said_of_error(exc)) for t in types]
        entries = []
        for device_type in types:
            try:
                fetcher = self._fetchers.for_type(device_type)
            except UnknownFetcher as exc:
                entries.append(CatalogEntry(device_type, None, exc.detail, said_of_error(exc)))
                continue
            entries.append(CatalogEntry(device_type, fetcher.inventory(device_type, state)))
        return entries

    def _refuse_official_key(self, resource_key: str) -> None:
        for preset in official_presets():
            if preset.resource_key == resource_key:
                raise Conflict(
                    code="device_type.official_key",
                    field="resource_key",
                    resource_key=resource_key,
                    device_type=preset.id,
                )


def _validated(data: dict[str, Any]) -> DeviceType:
    try:
        return DeviceType.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        reason = validation_message(first).to_data()
        raise ValidationFailed(
            code="device_type.invalid_field", field=field, params={"reason": reason}
        ) from None


def _readable_official(preset: DeviceType, row: DeviceTypeRow | None) -> DeviceType:
    try:
        return overlay(preset, row)
    except UnreadableDeviceType as exc:
        # The vendor's preset still describes the hardware; the admins' overrides wait for a reset.
        _log.warning("official device type served as its preset", reason=exc.detail)
        return preset


def _refuse_official_identity_change(current: DeviceType, wanted: dict[str, Any]) -> None:
    baseline = current.model_dump(mode="json")
    for field in ("name", "vendor", "resource_key", "fetcher"):
        if wanted.get(field) != baseline[field]:
            raise ValidationFailed(
                code="device_type.official_identity",
                field=field,
                params={"device_type": current.id, "editable": ", ".join(OFFICIAL_EDITABLE)},
            )


def _stale(device_type_id: str, current: int, expected: int) -> Conflict:
    return Conflict(
        code="device_type.stale",
        device_type=device_type_id,
        current_revision=current,
        expected_revision=expected,
    )
