"""The plugin's devices with their health, and a way to wait for the next change."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from nufi_mock.inventory import MockDevice
from nufi_mock.kubelet_api import HEALTHY, UNHEALTHY

HEALTH_VALUES = (HEALTHY, UNHEALTHY)


class DeviceBoard:
    """Devices and their current health. Every change bumps ``version`` and wakes the waiters, so each
    ListAndWatch stream can send the complete list again."""

    def __init__(self, devices: list[MockDevice]) -> None:
        self.devices = list(devices)
        self._by_id = {device.device_id: device for device in self.devices}
        self._health = dict.fromkeys(self._by_id, HEALTHY)
        self.version = 0
        self.epoch = 0
        """Bumped by end_streams: streams opened in an older epoch finish."""
        self._changed = asyncio.Condition()

    def get(self, device_id: str) -> MockDevice | None:
        return self._by_id.get(device_id)

    def health(self) -> dict[str, str]:
        return dict(self._health)

    def numa_nodes(self) -> dict[str, int]:
        return {device.device_id: device.numa_node for device in self.devices}

    async def apply(self, wanted: Mapping[str, str]) -> list[str]:
        """Set health from ``wanted`` (device id -> Healthy/Unhealthy); unlisted devices become Healthy.

        Returns the ids in ``wanted`` that are not devices of this plugin. Waiters wake only when
        something actually changed."""
        unknown = sorted(device_id for device_id in wanted if device_id not in self._by_id)
        new = {device_id: wanted.get(device_id, HEALTHY) for device_id in self._by_id}
        for device_id, health in new.items():
            if health not in HEALTH_VALUES:
                raise ValueError(f"health of {device_id} must be {HEALTHY} or {UNHEALTHY}, got {health!r}")
        if new != self._health:
            self._health = new
            async with self._changed:
                self.version += 1
                self._changed.notify_all()
        return unknown

    async def wait_newer(self, seen: int, epoch: int) -> int | None:
        """Block until ``version`` differs from ``seen`` and return it; None once ``epoch`` is over."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.version != seen or self.epoch != epoch)
            return self.version if self.epoch == epoch else None

    async def end_streams(self) -> None:
        """Let every waiting stream finish, e.g. before its server stops."""
        async with self._changed:
            self.epoch += 1
            self._changed.notify_all()
