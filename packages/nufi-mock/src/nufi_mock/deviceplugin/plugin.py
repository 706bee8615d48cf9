"""The device plugin's life: serve on its socket, register with the kubelet, follow health and restarts."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import grpc
import structlog

from nufi_mock.inventory import mock_devices
from nufi_mock.kubelet_api import VERSION, deviceplugin_v1beta1_pb2, deviceplugin_v1beta1_pb2_grpc

from .config import PluginConfig
from .devices import DeviceBoard
from .health_file import HealthFileError, expand_all, read_health
from .servicer import DevicePluginService
from .socket_watch import RegistrationSnapshot, needs_reregistration, socket_identity

_pb = deviceplugin_v1beta1_pb2
_log = structlog.get_logger("nufi_mock.deviceplugin")

# The kubelet dials the plugin back inside Register with a 10 s deadline; allow for that.
_REGISTER_TIMEOUT_SECONDS = 15.0
_REGISTER_RETRY_SECONDS = 1.0
_STOP_GRACE_SECONDS = 1.0


class _ServeAgain(Exception):
    """The plugin's socket file vanished before registration finished: serve on a fresh one."""


class DevicePlugin:
    """One plugin process. ``run`` returns once ``stop`` is set, with its socket removed."""

    def __init__(self, config: PluginConfig) -> None:
        self.config = config
        self.board = DeviceBoard(mock_devices(config.devices, config.numa_nodes))
        self.service = DevicePluginService(
            self.board,
            resource_name=config.resource_name,
            device_specs=config.device_specs,
            host_share=config.host_share,
        )
        self.registrations = 0
        self._health_error: str | None = None
        self._unknown_ids: list[str] = []

    async def run(self, stop: asyncio.Event) -> None:
        await self.refresh_health()
        health = asyncio.create_task(self._follow_health(stop), name="health file")
        try:
            while not stop.is_set():
                server = await self._serve()
                try:
                    snapshot = await self._register(stop)
                    if snapshot is not None:
                        await self._watch(snapshot, stop)
                except _ServeAgain:
                    _log.info("plugin socket removed; serving on a new one", socket=str(self._socket))
                finally:
                    # End the kubelet's ListAndWatch streams cleanly rather than cancelling them.
                    await self.board.end_streams()
                    await server.stop(_STOP_GRACE_SECONDS)
        finally:
            health.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await health
            self._socket.unlink(missing_ok=True)

    @property
    def _socket(self) -> Path:
        return self.config.plugin_socket.absolute()

    async def _serve(self) -> Any:
        self._socket.parent.mkdir(parents=True, exist_ok=True)
        self._socket.unlink(missing_ok=True)
        server = grpc.aio.server()
        deviceplugin_v1beta1_pb2_grpc.add_DevicePluginServicer_to_server(self.service, server)
        server.add_insecure_port(f"unix://{self._socket}")
        await server.start()
        _log.info("serving", socket=str(self._socket), devices=len(self.board.devices))
        return server

    async def _register(self, stop: asyncio.Event) -> RegistrationSnapshot | None:
        """Register until the kubelet accepts; None when stopped first."""
        kubelet_socket = self.config.kubelet_socket.absolute()
        waiting_logged = False
        while not stop.is_set():
            kubelet = socket_identity(kubelet_socket)
            plugin = socket_identity(self._socket)
            if plugin is None:
                raise _ServeAgain
            if kubelet is None:
                if not waiting_logged:
                    _log.info("waiting for the kubelet", kubelet_socket=str(kubelet_socket))
                    waiting_logged = True
                await _sleep_unless(stop, self.config.watch_interval)
                continue
            try:
                await self._call_register(kubelet_socket)
            except grpc.aio.AioRpcError as exc:
                _log.warning("registration failed", code=exc.code().name, detail=exc.details())
                await _sleep_unless(stop, _REGISTER_RETRY_SECONDS)
                continue
            self.registrations += 1
            _log.info(
                "registered",
                resource=self.config.resource_name,
                endpoint=self.config.endpoint,
                kubelet_socket=str(kubelet_socket),
                registrations=self.registrations,
            )
            return RegistrationSnapshot(kubelet, plugin)
        return None

    async def _call_register(self, kubelet_socket: Path) -> None:
        async with grpc.aio.insecure_channel(f"unix://{kubelet_socket}") as channel:
            await deviceplugin_v1beta1_pb2_grpc.RegistrationStub(channel).Register(
                _pb.RegisterRequest(
                    version=VERSION,
                    endpoint=self.config.endpoint,
                    resource_name=self.config.resource_name,
                    options=_pb.DevicePluginOptions(
                        pre_start_required=False, get_preferred_allocation_available=True
                    ),
                ),
                timeout=_REGISTER_TIMEOUT_SECONDS,
            )

    async def _watch(self, snapshot: RegistrationSnapshot, stop: asyncio.Event) -> None:
        kubelet_socket = self.config.kubelet_socket.absolute()
        while not stop.is_set():
            if needs_reregistration(snapshot, kubelet_socket, self._socket):
                _log.info("kubelet restarted; registering again", kubelet_socket=str(kubelet_socket))
                return
            await _sleep_unless(stop, self.config.watch_interval)

    async def refresh_health(self) -> None:
        """Apply the health file now; a broken file keeps the last good state and is logged once."""
        path = self.config.health_path
        try:
            wanted = read_health(path)
        except HealthFileError as exc:
            if str(exc) != self._health_error:
                _log.warning("health file ignored", problem=str(exc))
                self._health_error = str(exc)
            return
        self._health_error = None
        before = self.board.version
        ids = [device.device_id for device in self.board.devices]
        unknown = await self.board.apply(expand_all(wanted, ids))
        if unknown and unknown != self._unknown_ids:
            _log.warning("health file names unknown devices", devices=unknown, health_file=str(path))
        self._unknown_ids = unknown
        if self.board.version != before:
            _log.info("device health changed", health=self.board.health())

    async def _follow_health(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await _sleep_unless(stop, self.config.watch_interval)
            await self.refresh_health()


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
