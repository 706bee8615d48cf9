"""The plugin registers again when the kubelet restarts (kubelet.sock re-created, plugin sockets removed).

Here the simulated device manager runs in the test's own event loop, so the test can also start the
plugin before any kubelet exists and watch every registration; the dev cluster's restart hook is
exercised in test_mock_device_plugin.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nufi_mock.kubelet_api import HEALTHY
from nufi_sandbox.devcluster.kubelet import DeviceManager
from nufi_sandbox.processes import ManagedProcess
from support.polling import eventually, holds

from .mock_support import LPU, log_events, start_plugin


class Counts:
    """Records what the device manager would write into node status."""

    def __init__(self) -> None:
        self.latest: dict[str, tuple[int, int]] = {}

    async def devices_changed(self, node: str, resource: str, capacity: int, allocatable: int) -> None:
        self.latest[resource] = (capacity, allocatable)


@pytest.fixture
async def kubelet(tmp_path: Path) -> AsyncIterator[tuple[DeviceManager, Counts]]:
    counts = Counts()
    manager = DeviceManager(
        "n1", tmp_path / "device-plugins", tmp_path / "pod-resources" / "kubelet.sock", counts
    )
    try:
        yield manager, counts
    finally:
        await manager.stop()


def connected(manager: DeviceManager) -> bool:
    state = manager.resources().get(LPU)
    assert state is not None and state.endpoint is not None, state
    assert state.allocatable == 4 and set(state.devices.values()) == {HEALTHY}, state
    return True


async def test_plugin_waits_for_the_kubelet_and_registers_again_after_each_restart(
    kubelet: tuple[DeviceManager, Counts], tmp_path: Path
) -> None:
    manager, counts = kubelet
    plugin_dir = tmp_path / "device-plugins"
    plugin_dir.mkdir()
    # The DaemonSet may start before the kubelet: no kubelet.sock yet.
    plugin = start_plugin(plugin_dir, tmp_path / "logs")
    try:
        await eventually(lambda: holds(log_events(plugin, "waiting for the kubelet")), within=10)
        # Starting, the kubelet deletes the plugin's socket too; the plugin serves a new one.
        await manager.start()
        await eventually(lambda: connected(manager), within=5)
        assert counts.latest[LPU] == (4, 4)

        for restart in (1, 2):
            before = socket_inode(plugin_dir / "kubelet.sock")
            await manager.restart()
            assert socket_inode(plugin_dir / "kubelet.sock") != before
            assert manager.resources()[LPU].endpoint is None
            # Generous bounds: the plugin notices the new socket by polling, and a loaded machine slows
            # both that and the flush of its log line; what matters is that it does register again.
            await eventually(lambda: connected(manager), within=20)
            assert counts.latest[LPU] == (4, 4)
            await eventually(functools.partial(registered, plugin, restart + 1), within=20)
    finally:
        plugin.stop()
    assert plugin.returncode == 0
    assert not (plugin_dir / "lpu.sock").exists()


def registered(plugin: ManagedProcess, times: int) -> bool:
    registrations = [e["registrations"] for e in log_events(plugin, "registered")]
    assert registrations and registrations[-1] == times, registrations
    return True


def socket_inode(path: Path) -> tuple[int, int]:
    info = path.stat()
    return (info.st_ino, info.st_ctime_ns)
