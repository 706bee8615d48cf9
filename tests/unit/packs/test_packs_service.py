"""Apply refuses before it writes: the catalog, thermal and alerts services stand in as recorders, and
the gateways of the live checks are absent, so reaching a live check or a write fails the test."""

from __future__ import annotations

from typing import Any, cast

import pytest

from nufi.alerts.service import AlertService, ThresholdsEntry
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import Principal
from nufi.auth.principal import DEFAULT_ADMIN_ROLE
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.presets import official_presets
from nufi.devices.spec import DeviceType
from nufi.errors import Conflict, ValidationFailed
from nufi.packs.export import pack_of
from nufi.packs.service import PackService
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.service import PolicyEntry, ThermalService

ADMIN = Principal(subject="a", username="ada", roles=frozenset({DEFAULT_ADMIN_ROLE}))


class Recorder:
    """The catalog, thermal and alerts services at once: types in memory, every write remembered."""

    def __init__(self, types: list[DeviceType]) -> None:
        self.types = {t.id: t for t in types}
        self.writes: list[str] = []

    async def find(self, device_type_id: str) -> DeviceType | None:
        return self.types.get(device_type_id)

    async def list(self, principal: Principal) -> list[DeviceType]:
        return list(self.types.values())

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


def service(recorder: Recorder) -> PackService:
    return PackService(
        catalog=cast(DeviceCatalog, recorder),
        thermal=cast(ThermalService, recorder),
        alerts=cast(AlertService, recorder),
        fetchers=cast(Any, None),
        cluster=cast(Any, None),
        prometheus=cast(Any, None),
        usage=Users(),
    )


def document(device_type: DeviceType, **spec: Any) -> dict[str, Any]:
    found = pack_of(device_type, None, None).document()
    found["spec"].update(spec)
    return found


def custom(name: str) -> DeviceType:
    atom = official_presets()[2]
    return atom.model_copy(update={"id": name, "kind": "custom", "resource_key": f"example.com/{name}"})


async def test_an_official_identity_change_anywhere_is_refused_before_any_type_is_checked_or_written() -> (
    None
):
    atom = official_presets()[2]
    recorder = Recorder([atom])
    documents = [document(custom("new")), document(atom, name="Renamed")]
    with pytest.raises(ValidationFailed) as caught:
        await service(recorder).apply(ADMIN, documents)
    assert (caught.value.code, caught.value.field) == (
        "device_type.official_identity",
        "documents[1].spec.name",
    )
    assert recorder.writes == []


async def test_a_custom_type_may_not_take_an_official_key_or_a_reserved_id() -> None:
    atom = official_presets()[2]
    for doc, code, field in (
        (
            document(custom("mine"), resource_key=atom.resource_key),
            "device_type.official_key",
            "spec.resource_key",
        ),
        (document(custom("overview")), "device_type.id_reserved", "metadata.name"),
    ):
        with pytest.raises((Conflict, ValidationFailed)) as caught:
            await service(Recorder([])).apply(ADMIN, [doc])
        assert (caught.value.code, caught.value.extra["field"]) == (code, f"documents[0].{field}")


async def test_a_prune_that_would_take_a_type_from_its_workloads_is_refused_whole() -> None:
    kept, idle, busy = custom("kept"), custom("idle"), custom("busy")
    recorder = Recorder([kept, idle, busy])
    with pytest.raises(Conflict) as caught:
        await service(recorder).apply(ADMIN, [document(kept)], prune=True)
    assert (caught.value.code, caught.value.extra["device_type"]) == ("device_type.in_use", "busy")
    assert recorder.writes == []


async def test_prune_never_deletes_an_official_type_and_a_dry_run_writes_nothing() -> None:
    atom, kept, idle = official_presets()[2], custom("kept"), custom("idle")
    recorder = Recorder([atom, kept, idle])
    diff = await service(recorder).apply(ADMIN, [document(kept)], prune=True, dry_run=True)
    assert [(r.name, r.action) for r in diff.results] == [("kept", "unchanged"), ("idle", "deleted")]
    assert recorder.writes == []
    await service(recorder).apply(ADMIN, [document(kept)], prune=True)
    assert recorder.writes == ["delete"]
