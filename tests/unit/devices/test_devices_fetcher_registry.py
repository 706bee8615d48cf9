"""The fetcher registry: built-ins, plugins by entry point, and broken plugins skipped with a log line."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib.metadata import EntryPoint

import pytest

from nufi.cluster import ClusterState
from nufi.devices.capacity import Inventory
from nufi.devices.fetcher import DeviceFetcher, GenericFetcher, PrometheusQueries
from nufi.devices.fetcher_registry import ENTRY_POINT_GROUP, FetcherRegistry, UnknownFetcher
from nufi.devices.official.nvidia import DcgmFetcher
from nufi.devices.presets import OFFICIAL_PRESETS
from nufi.devices.readings import Readings
from nufi.devices.spec import DeviceType, MetricKey


class AcmeFetcher:
    def labels_read(self, device_type: DeviceType) -> tuple[str, ...] | None:
        return None

    def usable(self, metric: MetricKey, value: float) -> bool:
        return True

    def inventory(self, device_type: DeviceType, cluster: ClusterState) -> Inventory:
        return Inventory(device_type.resource_key, ())

    async def readings(
        self, device_type: DeviceType, prometheus: PrometheusQueries, *, at: float | None = None
    ) -> Readings:
        return Readings(devices=())


class SyncFetcher(AcmeFetcher):
    def readings(  # type: ignore[override]
        self, device_type: DeviceType, prometheus: PrometheusQueries, *, at: float | None = None
    ) -> Readings:
        return Readings(devices=())


class OldFetcher:
    """The interface before fetchers said which labels they read and which values are usable."""

    async def inventory(self, device_type: DeviceType, cluster: ClusterState) -> Inventory:
        return Inventory(device_type.resource_key, ())

    async def readings(
        self, device_type: DeviceType, prometheus: PrometheusQueries, *, at: float | None = None
    ) -> Readings:
        return Readings(devices=())


class NeedsArguments(AcmeFetcher):
    def __init__(self, url: str) -> None:
        self.url = url


ACME_INSTANCE = AcmeFetcher()


def make_acme() -> AcmeFetcher:
    return AcmeFetcher()


def entries(**targets: str) -> list[EntryPoint]:
    return [EntryPoint(name, value, ENTRY_POINT_GROUP) for name, value in targets.items()]


def source_of(found: list[EntryPoint]) -> object:
    def source(group: str) -> Iterable[EntryPoint]:
        assert group == ENTRY_POINT_GROUP
        return found

    return source


def registry_with(**targets: str) -> FetcherRegistry:
    return FetcherRegistry.with_plugins(source=source_of(entries(**targets)))  # type: ignore[arg-type]


def test_built_ins_are_there_without_plugins() -> None:
    registry = registry_with()
    assert registry.names() == ["generic", "nvidia-dcgm"]
    assert isinstance(registry.get("generic"), GenericFetcher)
    assert isinstance(registry.get("nvidia-dcgm"), DcgmFetcher)
    for preset in OFFICIAL_PRESETS.values():
        assert isinstance(registry.for_type(preset), DeviceFetcher)
    assert registry.failures == ()


def test_plugins_load_as_class_instance_or_factory() -> None:
    registry = registry_with(
        **{
            "acme-npu": f"{__name__}:AcmeFetcher",
            "acme-instance": f"{__name__}:ACME_INSTANCE",
            "acme-factory": f"{__name__}:make_acme",
        }
    )
    assert {"acme-npu", "acme-instance", "acme-factory"} <= set(registry.names())
    assert isinstance(registry.get("acme-npu"), AcmeFetcher)
    assert registry.get("acme-instance") is ACME_INSTANCE
    assert isinstance(registry.get("acme-factory"), AcmeFetcher)


def test_broken_plugins_are_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nufi.devices.fetcher_registry")
    registry = registry_with(
        **{
            "missing-module": "nufi_no_such_module_anywhere:Fetcher",
            "missing-attribute": f"{__name__}:NoSuchThing",
            "sync": f"{__name__}:SyncFetcher",
            "old": f"{__name__}:OldFetcher",
            "needs-args": f"{__name__}:NeedsArguments",
            "not-a-fetcher": "builtins:dict",
            "generic": f"{__name__}:AcmeFetcher",
            "Bad_Name": f"{__name__}:AcmeFetcher",
            "fine": f"{__name__}:AcmeFetcher",
        }
    )
    assert registry.names() == ["fine", "generic", "nvidia-dcgm"]
    assert isinstance(registry.get("generic"), GenericFetcher)  # a plugin cannot replace a built-in
    reasons = {failure.name: failure.reason for failure in registry.failures}
    assert set(reasons) == {
        "missing-module",
        "missing-attribute",
        "sync",
        "old",
        "needs-args",
        "not-a-fetcher",
        "generic",
        "Bad_Name",
    }
    assert (
        "cannot import it" in reasons["missing-module"] and "ModuleNotFoundError" in reasons["missing-module"]
    )
    assert "does not implement DeviceFetcher (missing: async readings())" in reasons["sync"]
    assert "(missing: labels_read(), usable())" in reasons["old"]
    assert "no arguments" in reasons["needs-args"]
    assert "already taken" in reasons["generic"]
    assert "not a fetcher name" in reasons["Bad_Name"]
    logged = [record.getMessage() for record in caplog.records]
    assert sum("skipping device fetcher plugin" in line for line in logged) == 8
    assert any("'missing-module'" in line for line in logged)


def test_two_plugins_with_one_name_keep_the_first() -> None:
    found = entries(acme=f"{__name__}:AcmeFetcher") + entries(acme=f"{__name__}:make_acme")
    registry = FetcherRegistry.with_plugins(source=source_of(found))  # type: ignore[arg-type]
    assert [failure.name for failure in registry.failures] == ["acme"]
    assert "acme" in registry


def test_an_unknown_fetcher_is_a_validation_error_listing_the_choices() -> None:
    with pytest.raises(UnknownFetcher) as caught:
        registry_with().get("acme-npu")
    assert caught.value.status == 422 and caught.value.field == "fetcher"
    assert "'acme-npu'" in caught.value.detail and "generic, nvidia-dcgm" in caught.value.detail
