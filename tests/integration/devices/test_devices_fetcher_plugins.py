"""Third-party fetchers found through a real installed distribution's entry points.

The distribution is laid out in a temporary directory (module + `*.dist-info` with `entry_points.txt`)
and put on sys.path, so importlib.metadata discovers it exactly as it would an installed wheel.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from nufi.cluster import ClusterState
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.devices.presets import OFFICIAL_PRESETS
from support.plugins import installed_distribution

PLUGIN_MODULE = """
from nufi.devices.capacity import Inventory, NodeInventory
from nufi.devices.readings import DeviceReading, Readings


class AcmeFetcher:
    def labels_read(self, device_type):
        return None

    def usable(self, metric, value):
        return value >= 0

    def inventory(self, device_type, cluster):
        return Inventory(device_type.resource_key, (NodeInventory("acme-node", 2, 2, 1),))

    async def readings(self, device_type, prometheus, *, at=None):
        return Readings(devices=(DeviceReading("acme-node", "acme0", utilization_percent=12.0),))
"""


@pytest.fixture
def installed_plugins(tmp_path: Path) -> Iterator[Path]:
    with installed_distribution(
        tmp_path,
        "acme-nufi-plugin",
        {
            "acme_nufi_plugin": PLUGIN_MODULE,
            "acme_nufi_broken": "raise RuntimeError('the vendor SDK is missing')\n",
        },
        {"acme-npu": "acme_nufi_plugin:AcmeFetcher", "acme-broken": "acme_nufi_broken:Fetcher"},
    ) as root:
        yield root


async def test_an_installed_plugin_is_loaded_and_a_broken_one_skipped(
    installed_plugins: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="nufi.devices.fetcher_registry")
    registry = FetcherRegistry.with_plugins()

    assert "acme-npu" in registry and "generic" in registry and "nvidia-dcgm" in registry
    fetcher = registry.get("acme-npu")
    device_type = OFFICIAL_PRESETS["rebellions-atom"].model_copy(update={"fetcher": "acme-npu"})
    assert registry.for_type(device_type) is fetcher
    inventory = fetcher.inventory(device_type, ClusterState((), ()))
    assert inventory.allocated == 1
    readings = await fetcher.readings(device_type, None)  # type: ignore[arg-type]
    assert readings.devices[0].utilization_percent == 12.0

    assert "acme-broken" not in registry
    (failure,) = [f for f in registry.failures if f.name == "acme-broken"]
    assert failure.target == "acme_nufi_broken:Fetcher"
    assert "RuntimeError: the vendor SDK is missing" in failure.reason
    assert any("acme-broken" in record.getMessage() for record in caplog.records)


def test_without_the_distribution_there_is_no_plugin() -> None:
    assert "acme-npu" not in FetcherRegistry.with_plugins()
