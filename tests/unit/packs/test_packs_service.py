"""Apply refuses before it writes: the catalog is a real one on an in-memory database whose cluster
and Prometheus are absent, so reaching a live check fails the test; the thermal and alerts services
stand in as recorders, and every write is remembered (the catalog's by its audit records)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, cast

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from nufi.alerts.service import AlertService, ThresholdsEntry
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import Principal
from nufi.auth.principal import DEFAULT_ADMIN_ROLE
from nufi.db import AuditRepository, Database, DeviceTypeRepository
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.devices.presets import official_presets
from nufi.devices.spec import DeviceType
from nufi.devices.stored import new_row
from nufi.errors import Conflict, ValidationFailed
from nufi.packs.export import pack_of
from nufi.packs.service import PackService
from nufi.thermal.effective import PolicyEntry
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.service import ThermalService
from support.nufi_app import MEMORY_DATABASE

ADMIN = Principal(subject="a", username="ada", roles=frozenset({DEFAULT_ADMIN_ROLE}))


class Recorder:
    """The thermal and alerts services at once: defaults only, every write remembered."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    async def policy(self, principal: Principal, device_type_id: str) -> PolicyEntry:
        return PolicyEntry(device_type_id, ThermalPolicy(), "default")

    async def thresholds(self, principal: Principal, device_type_id: str) -> ThresholdsEntry:
        return ThresholdsEntry(device_type_id, AlertThresholds(), 0.0, "default", None)

    def __getattr__(self, name: str) -> Any:
        async def write(*args: object, **kwargs: object) -> None:
            self.writes.append(name)

        return write


class Users:
    async def users_of(self, device_type_id: str) -> list[str]:
        return ["team-a/deployment/chat"] if device_type_id == "busy" else []


@dataclass
class Packs:
    service: PackService
    database: Database
    recorder: Recorder

    async def store(self, *types: DeviceType) -> None:
        async with self.database.transaction() as session:
            for device_type in types:
                await DeviceTypeRepository(session).insert(new_row(device_type, "custom"), actor="seed")

    async def writes(self) -> list[str]:
        async with self.database.session() as session:
            audited = [row.action for row in await AuditRepository(session).list(100, 0)]
        return audited + self.recorder.writes


@pytest.fixture
async def packs() -> AsyncIterator[Packs]:
    engine = create_async_engine(MEMORY_DATABASE)
    database = Database(engine)
    await database.upgrade()
    absent = cast(Any, None)
    catalog = DeviceCatalog(database, absent, absent, FetcherRegistry.with_plugins(), usage=Users())
    recorder = Recorder()
    thermal, alerts = cast(ThermalService, recorder), cast(AlertService, recorder)
    yield Packs(PackService(catalog=catalog, thermal=thermal, alerts=alerts), database, recorder)
    await engine.dispose()


def document(device_type: DeviceType, **spec: Any) -> dict[str, Any]:
    found = pack_of(device_type, None, None).document()
    found["spec"].update(spec)
    return found


def custom(name: str) -> DeviceType:
    atom = official_presets()[2]
    return atom.model_copy(update={"id": name, "kind": "custom", "resource_key": f"example.com/{name}"})


async def test_an_official_identity_change_anywhere_is_refused_before_any_type_is_checked_or_written(
    packs: Packs,
) -> None:
    atom = official_presets()[2]
    documents = [document(custom("new")), document(atom, name="Renamed")]
    with pytest.raises(ValidationFailed) as caught:
        await packs.service.apply(ADMIN, documents)
    assert (caught.value.code, caught.value.field) == (
        "device_type.official_identity",
        "documents[1].spec.name",
    )
    assert await packs.writes() == []


async def test_a_custom_type_may_not_take_an_official_or_taken_key_or_a_reserved_id(packs: Packs) -> None:
    atom = official_presets()[2]
    await packs.store(custom("first"))
    for doc, code, field in (
        (
            document(custom("mine"), resource_key=atom.resource_key),
            "device_type.official_key",
            "spec.resource_key",
        ),
        (
            document(custom("mine"), resource_key="example.com/first"),
            "db.resource_key_taken",
            "spec.resource_key",
        ),
        (document(custom("overview")), "device_type.id_reserved", "metadata.name"),
    ):
        with pytest.raises((Conflict, ValidationFailed)) as caught:
            await packs.service.apply(ADMIN, [doc], dry_run=True)
        assert (caught.value.code, caught.value.extra["field"]) == (code, f"documents[0].{field}")
    assert await packs.writes() == []


async def test_a_prune_that_would_take_a_type_from_its_workloads_is_refused_whole(packs: Packs) -> None:
    kept, idle, busy = custom("kept"), custom("idle"), custom("busy")
    await packs.store(kept, idle, busy)
    with pytest.raises(Conflict) as caught:
        await packs.service.apply(ADMIN, [document(kept)], prune=True)
    assert (caught.value.code, caught.value.extra["device_type"]) == ("device_type.in_use", "busy")
    assert await packs.writes() == []


async def test_prune_never_deletes_an_official_type_and_a_dry_run_writes_nothing(packs: Packs) -> None:
    kept, idle = custom("kept"), custom("idle")
    await packs.store(kept, idle)
    diff = await packs.service.apply(ADMIN, [document(kept)], prune=True, dry_run=True)
    assert [(r.name, r.action) for r in diff.results] == [("kept", "unchanged"), ("idle", "deleted")]
    assert await packs.writes() == []
    await packs.service.apply(ADMIN, [document(kept)], prune=True)
    assert await packs.writes() == ["device_type.delete"]
