"""The driver's life: serve the kubelet, publish the healthy LPUs as the node's pool, follow the health
file, and take the pool away on stop."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import grpc
import structlog

from nufi_mock.deviceplugin.health_file import HealthFileError, expand_all, read_health
from nufi_mock.inventory import MockDevice, mock_devices
from nufi_mock.kubelet_api import HEALTHY, dra_v1_pb2_grpc, pluginregistration_v1_pb2_grpc

from .config import DriverConfig
from .kube import KubeClient, KubeError
from .publisher import SlicePublisher
from .service import DraPluginService, RegistrationService

_log = structlog.get_logger("nufi_mock.dra")
_STOP_GRACE_SECONDS = 1.0


class DraDriver:
    """One driver process for one node. ``run`` returns once ``stop`` is set, its slices deleted."""

    def __init__(self, config: DriverConfig, kube: KubeClient) -> None:
        self.config = config
        self.devices = mock_devices(config.devices, config.numa_nodes)
        self._kube = kube
        self._health: dict[str, str] = {}
        self._health_problem: str | None = None
        self.publisher = SlicePublisher(kube, config.node, config.lpu_model)
        self.registration = RegistrationService(config.plugin_socket.absolute())
        self.plugin = DraPluginService(
            kube,
            node=config.node,
            cdi_dir=config.cdi_dir.absolute(),
            known=lambda: {device.device_id for device in self.devices},
        )

    def healthy(self) -> list[MockDevice]:
        return [d for d in self.devices if self._health.get(d.device_id, HEALTHY) == HEALTHY]

    async def run(self, stop: asyncio.Event) -> None:
        server = await self._serve()
        try:
            while not stop.is_set():
                self._read_health()
                with contextlib.suppress(KubeError):
                    await self._publish()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self.config.watch_interval)
        finally:
            try:
                await self.publisher.withdraw()
            except KubeError as exc:
                _log.warning("resource slices not deleted", problem=str(exc))
            await server.stop(_STOP_GRACE_SECONDS)
            for socket in (self.config.registration_socket, self.config.plugin_socket):
                socket.unlink(missing_ok=True)

    async def _publish(self) -> None:
        try:
            await self.publisher.publish(self.healthy())
        except KubeError as exc:
            _log.warning("resource slices not published", problem=str(exc))
            raise

    async def _serve(self) -> Any:
        """One server on both sockets: registration where the kubelet's watcher looks, DRAPlugin at the
        endpoint GetInfo names."""
        server = grpc.aio.server()
        pluginregistration_v1_pb2_grpc.add_RegistrationServicer_to_server(self.registration, server)
        dra_v1_pb2_grpc.add_DRAPluginServicer_to_server(self.plugin, server)
        # The plugin socket first: the kubelet dials it as soon as it sees the registration socket.
        for socket in (self.config.plugin_socket, self.config.registration_socket):
            socket.parent.mkdir(parents=True, exist_ok=True)
            socket.unlink(missing_ok=True)
            server.add_insecure_port(f"unix://{socket.absolute()}")
        await server.start()
        _log.info("serving", node=self.config.node, registration=str(self.config.registration_socket))
        return server

    def _read_health(self) -> None:
        """The health file now; a broken file keeps the last good state and is logged once."""
        try:
            wanted = read_health(self.config.health_path)
        except HealthFileError as exc:
            if str(exc) != self._health_problem:
                _log.warning("health file ignored", problem=str(exc))
                self._health_problem = str(exc)
            return
        self._health_problem = None
        health = expand_all(wanted, [device.device_id for device in self.devices])
        if health != self._health:
            _log.info("device health changed", health=health)
            self._health = health
