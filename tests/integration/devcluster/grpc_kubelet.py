"""A simulated kubelet's gRPC side in the test's event loop, recording what it reports."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc

from nufi_sandbox.devcluster.kubelet import DeviceManager

from .fakeplugin import RES, DeviceRow, FakePlugin, devices

NODE = "node-a"
Event = tuple[str, str, int, int]


class RecordingListener:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self._changed = asyncio.Event()

    async def devices_changed(self, node: str, resource: str, capacity: int, allocatable: int) -> None:
        self.events.append((node, resource, capacity, allocatable))
        self._changed.set()

    async def wait_for(self, capacity: int, allocatable: int, *, since: int = 0) -> int:
        """Index of the first matching event at or after ``since``."""
        wanted = (NODE, RES, capacity, allocatable)
        async with asyncio.timeout(5):
            while wanted not in self.events[since:]:
                self._changed.clear()
                await self._changed.wait()
        return self.events.index(wanted, since)


class Kubelet:
    def __init__(self, root: Path, grace: float) -> None:
        self.plugin_dir = root / "device-plugins"
        self.pod_resources_socket = root / "pod-resources" / "kubelet.sock"
        self.listener = RecordingListener()
        self.manager = DeviceManager(
            NODE,
            self.plugin_dir,
            self.pod_resources_socket,
            self.listener,
            stop_grace_seconds=grace,
            dial_timeout_seconds=0.5,
        )
        self.plugins: list[FakePlugin] = []

    async def plugin(
        self, rows: list[DeviceRow] | None = None, name: str = "lpu.sock", **options: bool
    ) -> FakePlugin:
        """A serving plugin, registered unless ``register=False``."""
        register = options.pop("register", True)
        plugin = FakePlugin(self.plugin_dir, name, devices() if rows is None else rows, **options)
        self.plugins.append(plugin)
        await plugin.serve()
        if register:
            await plugin.register()
        return plugin

    def channel(self) -> Any:
        return grpc.aio.insecure_channel(f"unix://{self.pod_resources_socket}")


async def stream_ended(make_kubelet: Callable[..., Awaitable[Kubelet]]) -> tuple[Kubelet, FakePlugin, int]:
    """A kubelet with 0.5 s of grace whose plugin registered 4 devices and then ended its stream.

    Also the index of the event that made the devices unallocatable.
    """
    kubelet = await make_kubelet(grace=0.5)
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    plugin.end_streams()
    stopped = await kubelet.listener.wait_for(4, 0)
    return kubelet, plugin, stopped
