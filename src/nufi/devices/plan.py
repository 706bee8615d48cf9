"""A planned save of a device type (what will be written and audited, and the live checks' results),
the catalog's refusals that decide it, and the one transaction that commits it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import ValidationError

from nufi.cluster import ClusterReader
from nufi.db import AuditRepository, Database, DeviceTypeDependentsRepository, DeviceTypeRepository
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.devices.presets import official_presets
from nufi.devices.save_checks import checks_on_save
from nufi.devices.spec import DeviceType
from nufi.devices.stored import audit_view, first_problem, new_row, row_values
from nufi.errors import Conflict, ValidationFailed
from nufi.prom import PrometheusGateway

TARGET_KIND = "device_type"
# Fields an admin may change on an official type; its identity and resource key are the vendor's.
OFFICIAL_EDITABLE = ("enabled", "labels", "metrics", "thermal")
OFFICIAL_IDENTITY = ("name", "vendor", "resource_key", "fetcher")
# Ids that would shadow fixed API paths such as /api/v1/monitoring/overview.
RESERVED_IDS = frozenset({"overview"})

SaveAction = Literal["device_type.create", "device_type.update", "device_type.delete"]


@dataclass(frozen=True)
class SavePlan:
    """One save, decided and not yet written: `before` is the type as stored (None: it is created),
    `after` as it will be stored (None: it is deleted). `audit_before` is what the audit record keeps
    of `before`. `checks` holds the live checks' results (`force`, `bypassed`, warnings) once they ran;
    a delete has none. `revision` is the stored revision the write expects (a delete's may be None:
    any)."""

    action: SaveAction
    device_type_id: str
    actor: str
    before: DeviceType | None
    after: DeviceType | None
    audit_before: dict[str, Any] | None = None
    revision: int | None = None
    checks: dict[str, Any] | None = None

    def checked(self, checks: dict[str, Any]) -> SavePlan:
        return replace(self, checks=checks)

    @property
    def warnings(self) -> list[str]:
        return [] if self.checks is None else list(self.checks["warnings"])

    @property
    def warning_messages(self) -> list[dict[str, Any]]:
        return [] if self.checks is None else list(self.checks["warning_messages"])


@dataclass(frozen=True)
class LiveChecks:
    """What the live checks ask: the cluster's nodes, Prometheus, and each type's fetcher (which says
    what its metrics may be)."""

    cluster: ClusterReader
    prometheus: PrometheusGateway
    fetchers: FetcherRegistry

    async def of_save(self, plan: SavePlan, *, force: bool) -> SavePlan:
        """The plan with the results of the wizard's checks of the type it saves, run once per plan."""
        if plan.after is None or plan.checks is not None:
            return plan
        fetcher = self.fetchers.for_type(plan.after)
        return plan.checked(
            await checks_on_save(plan.after, fetcher, self.cluster, self.prometheus, force=force)
        )


async def commit_plan(db: Database, plan: SavePlan) -> None:
    """Write `plan` and its audit record in one transaction; only what the database enforces (the
    revision, a taken id or resource key) can still refuse it."""
    if plan.action != "device_type.delete" and plan.checks is None:
        raise ValueError("a device type is saved only after its live checks ran")
    before, details = plan.audit_before, plan.checks
    async with db.transaction() as session:
        repo = DeviceTypeRepository(session)
        if plan.after is None:
            await repo.delete(plan.device_type_id, plan.revision)
            # Its policy, thresholds and history go in the same transaction: a type registered later
            # under this id must not inherit another admin's protection settings or past events.
            removed = await DeviceTypeDependentsRepository(session).remove(plan.device_type_id)
            before = {**(before or {}), "dependents": removed.audit_view()}
        elif plan.revision is None:
            # A new custom type, or the first edit of an official one: it stores the override row.
            await _insert(repo, plan.after, plan.actor, stale=plan.before)
        else:
            await repo.update(plan.device_type_id, plan.revision, row_values(plan.after), actor=plan.actor)
        after = None if plan.after is None else audit_view(plan.after)
        await AuditRepository(session).record(
            plan.actor, plan.action, TARGET_KIND, plan.device_type_id, before, after, details
        )


async def _insert(
    repo: DeviceTypeRepository, after: DeviceType, actor: str, *, stale: DeviceType | None
) -> None:
    try:
        await repo.insert(new_row(after, after.kind), actor=actor)
    except Conflict:
        if stale is None:
            raise
        # Someone stored the official type's override row first.
        raise stale_revision(after.id, stale.revision + 1, stale.revision) from None


def validated_type(data: dict[str, Any]) -> DeviceType:
    try:
        return DeviceType.model_validate(data)
    except ValidationError as exc:
        field, reason = first_problem(exc)
        raise ValidationFailed(
            code="device_type.invalid_field", field=field, params={"reason": reason}
        ) from None


def refuse_new_id(device_type_id: str, official: DeviceType | None) -> None:
    if device_type_id in RESERVED_IDS:
        raise ValidationFailed(code="device_type.id_reserved", field="id", params={"id": device_type_id})
    if official is not None:
        raise Conflict(code="device_type.id_official", field="id", device_type=device_type_id)


def refuse_official_key(resource_key: str) -> None:
    for preset in official_presets():
        if preset.resource_key == resource_key:
            raise Conflict(
                code="device_type.official_key",
                field="resource_key",
                resource_key=resource_key,
                device_type=preset.id,
            )


def refuse_taken_key(wanted: DeviceType, types: Sequence[DeviceType]) -> None:
    """The same refusal the database gives when another type holds the resource key, before it is asked."""
    for other in types:
        if other.id != wanted.id and other.resource_key == wanted.resource_key:
            raise Conflict(
                code="db.resource_key_taken",
                field="resource_key",
                resource_key=wanted.resource_key,
                device_type=other.id,
            )


def refuse_identity_change(current: DeviceType, wanted: dict[str, Any]) -> None:
    baseline = current.model_dump(mode="json")
    for field in OFFICIAL_IDENTITY:
        if wanted.get(field) != baseline[field]:
            raise ValidationFailed(
                code="device_type.official_identity",
                field=field,
                params={"device_type": current.id, "editable": ", ".join(OFFICIAL_EDITABLE)},
            )


def refuse_in_use(device_type_id: str, users: Sequence[str], *, field: str | None = None) -> None:
    """A type workloads hold may not go, nor change the resource key their pods hold devices by
    (`field`: resource_key)."""
    if users:
        raise Conflict(
            code="device_type.in_use",
            params={"count": len(users), "names": ", ".join(users[:20])},
            field=field,
            device_type=device_type_id,
            workloads=list(users),
        )


def stale_revision(device_type_id: str, current: int, expected: int) -> Conflict:
    return Conflict(
        code="device_type.stale",
        device_type=device_type_id,
        current_revision=current,
        expected_revision=expected,
    )
