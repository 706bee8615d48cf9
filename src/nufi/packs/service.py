"""Device packs for the faces: export a type as a pack, and apply packs (or only say what applying
would change: a dry run is the plan).

Apply plans every document with the services that write it: the type through the catalog's plan
(every refusal the devices API makes, then the live checks, once per document), the protection
policy's own condition as the thermal policy API checks it. It writes only when every plan holds;
then it commits the plans, each change in its own transaction with its audit record; what is unchanged
is not written and records nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from nufi.alerts.service import AlertService
from nufi.auth import Principal, require_admin
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.plan import SavePlan
from nufi.devices.spec import DeviceType, DeviceTypeCreate, DeviceTypeUpdate
from nufi.errors import NufiError, ValidationFailed
from nufi.packs.diff import ApplyOutcome
from nufi.packs.export import pack_of
from nufi.packs.model import DevicePack
from nufi.packs.plan import Plan, deletion, plan_of
from nufi.packs.protection_check import check_custom_condition
from nufi.packs.validate import validated_packs
from nufi.thermal.service import ThermalService


@dataclass(frozen=True)
class _Planned:
    """One document's plan (what changes, for the answer) and the catalog's plan of its type's save
    (None when the type's own fields do not change)."""

    plan: Plan
    save: SavePlan | None


class PackService:
    def __init__(self, *, catalog: DeviceCatalog, thermal: ThermalService, alerts: AlertService) -> None:
        self._catalog = catalog
        self._thermal = thermal
        self._alerts = alerts

    async def export(self, principal: Principal | None, device_type_id: str) -> DevicePack:
        """The pack of one type: its fields, and its protection policy and alert thresholds where an
        admin has set them."""
        admin = require_admin(principal)
        return await self._pack(admin, await self._catalog.get(admin, device_type_id))

    async def apply(
        self,
        principal: Principal | None,
        documents: Sequence[object],
        *,
        dry_run: bool = False,
        force: bool = False,
        prune: bool = False,
    ) -> ApplyOutcome:
        """Create or update the type of each document; with `prune`, delete the custom types no
        document names. `dry_run` plans everything and writes nothing."""
        admin = require_admin(principal)
        packs = validated_packs(documents)
        if prune and not packs:
            raise ValidationFailed(code="pack.prune_without_documents", field="documents")
        # What every document is refused for without asking Prometheus comes first, then the live
        # checks, then what the workloads say of the types a prune deletes.
        planned = [await self._plan(admin, index, pack) for index, pack in enumerate(packs)]
        planned = [await self._live_checked(admin, item, force=force) for item in planned]
        doomed = await self._doomed(admin, {pack.name for pack in packs}) if prune else []
        deletions = [await self._catalog.plan_delete(admin, pack.name) for pack in doomed]
        results = [item.plan.result for item in planned] + [deletion(pack) for pack in doomed]
        if not dry_run:
            for item in planned:
                with _in_document(item.plan):
                    await self._commit(admin, item)
            for save in deletions:
                await self._catalog.commit(save)
        return ApplyOutcome(dry_run=dry_run, results=results)

    # -- planning ------------------------------------------------------------------------------------

    async def _pack(self, admin: Principal, device_type: DeviceType) -> DevicePack:
        policy = await self._thermal.policy(admin, device_type.id)
        thresholds = await self._alerts.thresholds(admin, device_type.id)
        return pack_of(
            device_type,
            policy.policy if policy.source == "admin" else None,
            thresholds.thresholds if thresholds.source == "admin" else None,
        )

    async def _plan(self, admin: Principal, index: int, pack: DevicePack) -> _Planned:
        """The document's changes, and the catalog's plan of its type without the live checks yet."""
        current = await self._catalog.find(pack.name)
        now = None if current is None else await self._pack(admin, current)
        plan = plan_of(index, pack, current, now)
        if not plan.changed():
            return _Planned(plan, None)
        fields = plan.pack.spec.type_fields()
        with _in_document(plan):
            if current is None:
                create = DeviceTypeCreate.model_validate({**fields, "id": pack.name})
                return _Planned(plan, await self._catalog.plan_create(admin, create, live=False))
            update = DeviceTypeUpdate.model_validate({**fields, "revision": current.revision})
            return _Planned(plan, await self._catalog.plan_update(admin, pack.name, update, live=False))

    async def _live_checked(self, admin: Principal, planned: _Planned, *, force: bool) -> _Planned:
        """The live checks of the type the document saves, and of its protection's own condition
        when that changes."""
        plan, save = planned.plan, planned.save
        with _in_document(plan):
            if save is not None:
                save = await self._catalog.live_checked(save, force=force)
            protection = plan.pack.spec.protection
            if plan.changed("protection") and protection is not None and protection.custom.enabled:
                await check_custom_condition(
                    self._catalog, admin, plan.pack.spec, protection.custom, path=plan.path
                )
        return _Planned(plan, save)

    async def _doomed(self, admin: Principal, kept: set[str]) -> list[DevicePack]:
        """The custom types no document names; official types are never pruned."""
        types = await self._catalog.list(admin)
        return [await self._pack(admin, t) for t in types if t.kind == "custom" and t.id not in kept]

    # -- committing ----------------------------------------------------------------------------------

    async def _commit(self, admin: Principal, planned: _Planned) -> None:
        name, spec = planned.plan.pack.name, planned.plan.pack.spec
        if planned.save is not None:
            await self._catalog.commit(planned.save)
        if planned.plan.changed("protection") and spec.protection is not None:
            await self._thermal.put_policy(admin, name, spec.protection)
        if planned.plan.changed("alerts") and spec.alerts is not None:
            await self._alerts.put_thresholds(admin, name, spec.alerts)


@contextmanager
def _in_document(plan: Plan) -> Iterator[None]:
    """Errors of one document say which document they are about (`document`, `device_type`), and a
    field the catalog names (`resource_key`) by its path in the request
    (`documents[0].spec.resource_key`)."""
    try:
        yield
    except NufiError as exc:
        field = exc.extra.get("field")
        where = {} if not isinstance(field, str) else {"field": _pack_path(plan.path, field)}
        exc.extra = {"document": plan.path, "device_type": plan.pack.name, **exc.extra, **where}
        if isinstance(exc, ValidationFailed) and where:
            exc.field = where["field"]
        raise


def _pack_path(document: str, field: str) -> str:
    """A device type's field as the path of the same value in a pack document."""
    if field.startswith("documents["):
        return field
    if field in ("id", "revision"):
        return f"{document}.metadata.{'name' if field == 'id' else 'revision'}"
    return f"{document}.spec.{field}"
