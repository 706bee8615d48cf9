"""Keeps the node's pool of ResourceSlices what the driver's healthy devices are, as upstream's
resourceslice controller does: a change publishes the next pool generation, then removes the old one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import structlog

from nufi_mock.inventory import MockDevice

from .config import DRIVER_NAME, LpuModel
from .slices import pool_slices

_log = structlog.get_logger("nufi_mock.dra")


class SliceApi(Protocol):
    """The calls of ``kube.KubeClient`` the publisher makes."""

    async def slices_of(self, driver: str, node: str) -> list[dict[str, Any]]: ...

    async def create_slice(self, body: dict[str, Any]) -> dict[str, Any]: ...

    async def delete_slice(self, name: str) -> None: ...

    async def node_uid(self, node: str) -> str | None: ...


def _generation(item: dict[str, Any]) -> int:
    return int(item["spec"]["pool"].get("generation", 0))


class SlicePublisher:
    def __init__(self, kube: SliceApi, node: str, model: LpuModel) -> None:
        self._kube = kube
        self._node = node
        self._model = model
        self._published: tuple[str, ...] | None = None
        self.generation = 0

    async def publish(self, devices: Sequence[MockDevice]) -> bool:
        """Make the pool hold exactly ``devices``; True when a new generation was written."""
        wanted = tuple(device.device_id for device in devices)
        existing = await self._kube.slices_of(DRIVER_NAME, self._node)
        current = [item for item in existing if _generation(item) == self.generation]
        if wanted == self._published and len(current) == len(existing) and current:
            return False
        # Above every generation seen: a restarted driver never reuses one its predecessor wrote.
        self.generation = max([self.generation, *(_generation(item) for item in existing)]) + 1
        node_uid = await self._kube.node_uid(self._node)
        bodies = pool_slices(self._node, devices, self._model, generation=self.generation, node_uid=node_uid)
        for body in bodies:
            await self._kube.create_slice(body)
        for item in existing:
            await self._kube.delete_slice(item["metadata"]["name"])
        self._published = wanted
        _log.info("slices published", node=self._node, generation=self.generation, devices=list(wanted))
        return True

    async def withdraw(self) -> None:
        """Delete every slice of the pool: the driver is going away."""
        for item in await self._kube.slices_of(DRIVER_NAME, self._node):
            await self._kube.delete_slice(item["metadata"]["name"])
        self._published = None
        _log.info("resource slices deleted", node=self._node)
