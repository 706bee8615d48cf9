"""Device packs for the faces: export a type as a pack, and apply packs (or only say what applying
would change: a dry run is the diff).

Apply checks every document first (its fields, its revision, what an official type lets change, the
wizard's live checks of each type it creates or changes, a protection condition's expression) and
writes only when all of them pass. The writes then go through the catalog, thermal and alerts
services, each change in its own transaction with its audit record; what is unchanged is not written
and records nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from nufi.alerts.service import AlertService
from nufi.auth import Principal, require_admin
from nufi.cluster import ClusterReader
from nufi.devices.catalog import OFFICIAL_EDITABLE, RESERVED_IDS, DeviceCatalog
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.devices.presets import official_presets
from nufi.devices.save_checks import checks_on_save
from nufi.devices.spec import DeviceType, DeviceTypeCreate, DeviceTypeUpdate
from nufi.devices.usage import DeviceTypeUsage
from nufi.errors import Conflict, NufiError, ValidationFailed
from nufi.packs.diff import ApplyOutcome
from nufi.packs.export import pack_of
from nufi.packs.model import DevicePack
from nufi.packs.plan import Plan, deletion, plan_of
from nufi.packs.protection_check import check_custom_condition
from nufi.packs.validate import validated_packs
from nufi.prom import PrometheusGateway
from nufi.thermal.service import ThermalService

_IDENTITY = ("name", "vendor", "resource_key", "fetcher")


class PackService:
    def __init__(
        self,
        *,
        catalog: DeviceCatalog,
        thermal: ThermalService,
        alerts: AlertService,
        fetchers: FetcherRegistry,
        cluster: ClusterReader,
        prometheus: PrometheusGateway,
        usage: DeviceTypeUsage | None = None,
    ) -> None:
        self._catalog = catalog
        # Asked before anything is written, so a prune that would take a type from under its
        # workloads is refused whole, as the catalog's delete refuses it.
        self._usage = usage
        self._thermal = thermal
        self._alerts = alerts
        self._fetchers = fetchers
        self._cluster = cluster
        self._prometheus = prometheus

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
        document names. `dry_run` checks and compares everything and writes nothing."""
        admin = require_admin(principal)
        packs = validated_packs(documents)
        if prune and not packs:
            raise ValidationFailed(code="pack.prune_without_documents", field="documents")
        plans = [await self._plan(admin, index, pack) for index, pack in enumerate(packs)]
        # What every document is refused for without asking anyone comes first, then what the
        # cluster, Prometheus and the workloads say.
        saved = {plan.index: self._checked_type(plan) for plan in plans if plan.changed()}
        doomed = await self._doomed(admin, {pack.name for pack in packs}) if prune else []
        for plan in plans:
            with _in_document(plan):
                await self._live_checks(admin, plan, saved.get(plan.index), force=force)
        for pack in doomed:
            await self._refuse_in_use(pack.name)
        results = [plan.result for plan in plans] + [deletion(pack) for pack in doomed]
        if not dry_run:
            for plan in plans:
                with _in_document(plan):
                    await self._write(admin, plan, force=force)
            for pack in doomed:
                await self._catalog.delete(admin, pack.name)
        return ApplyOutcome(dry_run=dry_run, results=results)

    # -- reading and comparing -----------------------------------------------------------------------

    async def _pack(self, admin: Principal, device_type: DeviceType) -> DevicePack:
        policy = await self._thermal.policy(admin, device_type.id)
        thresholds = await self._alerts.thresholds(admin, device_type.id)
        return pack_of(
            device_type,
            policy.policy if policy.source == "admin" else None,
            thresholds.thresholds if thresholds.source == "admin" else None,
        )

    async def _plan(self, admin: Principal, index: int, pack: DevicePack) -> Plan:
        current = await self._catalog.find(pack.name)
        now = None if current is None else await self._pack(admin, current)
        return plan_of(index, pack, current, now)

    async def _doomed(self, admin: Principal, kept: set[str]) -> list[DevicePack]:
        """The custom types no document names; official types are never pruned."""
        types = await self._catalog.list(admin)
        return [await self._pack(admin, t) for t in types if t.kind == "custom" and t.id not in kept]

    # -- checking before anything is written ---------------------------------------------------------

    async def _live_checks(
        self, admin: Principal, plan: Plan, device_type: DeviceType | None, *, force: bool
    ) -> None:
        """The wizard's checks of a type the plan saves (`device_type`), and of its protection's own
        condition when that changes."""
        if device_type is not None:
            fetcher = self._fetchers.for_type(device_type)
            await checks_on_save(device_type, fetcher, self._cluster, self._prometheus, force=force)
        protection = plan.pack.spec.protection
        if plan.changed("protection") and protection is not None and protection.custom.enabled:
            await check_custom_condition(
                self._catalog, admin, plan.pack.spec, protection.custom, path=plan.path
            )

    def _checked_type(self, plan: Plan) -> DeviceType:
        """The type as it would be saved, after the refusals the catalog would make of it."""
        spec, current = plan.pack.spec, plan.current
        if current is not None and current.kind == "official":
            for field in _IDENTITY:
                if getattr(spec, field) != getattr(current, field):
                    raise ValidationFailed(
                        code="device_type.official_identity",
                        field=f"{plan.path}.spec.{field}",
                        params={"device_type": current.id, "editable": ", ".join(OFFICIAL_EDITABLE)},
                    )
        else:
            self._refuse_custom(plan)
        kind = "custom" if current is None else current.kind
        revision = 1 if current is None else current.revision
        return DeviceType.model_validate(
            {**plan.pack.spec.type_fields(), "id": plan.pack.name, "kind": kind, "revision": revision}
        )

    def _refuse_custom(self, plan: Plan) -> None:
        if plan.current is None and plan.pack.name in RESERVED_IDS:
            raise ValidationFailed(
                code="device_type.id_reserved",
                field=f"{plan.path}.metadata.name",
                params={"id": plan.pack.name},
            )
        for preset in official_presets():
            if preset.resource_key == plan.pack.spec.resource_key:
                raise Conflict(
                    code="device_type.official_key",
                    field=f"{plan.path}.spec.resource_key",
                    resource_key=preset.resource_key,
                    device_type=preset.id,
                )

    async def _refuse_in_use(self, device_type_id: str) -> None:
        users = [] if self._usage is None else await self._usage.users_of(device_type_id)
        if users:
            raise Conflict(
                code="device_type.in_use",
                params={"count": len(users), "names": ", ".join(users[:20])},
                device_type=device_type_id,
                workloads=users,
            )

    # -- writing -------------------------------------------------------------------------------------

    async def _write(self, admin: Principal, plan: Plan, *, force: bool) -> None:
        name, spec = plan.pack.name, plan.pack.spec
        if plan.current is None:
            payload = DeviceTypeCreate.model_validate({**spec.type_fields(), "id": name})
            await self._catalog.create(admin, payload, force=force)
        elif plan.changed():
            revision = plan.current.revision
            update = DeviceTypeUpdate.model_validate({**spec.type_fields(), "revision": revision})
            await self._catalog.update(admin, name, update, force=force)
        if plan.changed("protection") and spec.protection is not None:
            await self._thermal.put_policy(admin, name, spec.protection)
        if plan.changed("alerts") and spec.alerts is not None:
            await self._alerts.put_thresholds(admin, name, spec.alerts)


@contextmanager
def _in_document(plan: Plan) -> Iterator[None]:
    """Errors of one document say which document they are about (`document`, `device_type`)."""
    try:
        yield
    except NufiError as exc:
        exc.extra = {"document": plan.path, "device_type": plan.pack.name, **exc.extra}
        raise
