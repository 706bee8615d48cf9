"""The kubelet's client side of one device plugin: dial its socket and call its RPCs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from nufi_mock.kubelet_api import (
    PLUGIN_DIAL_TIMEOUT_SECONDS,
    PRE_START_CONTAINER_TIMEOUT_SECONDS,
    deviceplugin_v1beta1_pb2,
    deviceplugin_v1beta1_pb2_grpc,
)

from .gotext import go_status_text
from .model import PluginOptions, RegistrationError
from .sockets import unix_target

_pb = deviceplugin_v1beta1_pb2


@dataclass(frozen=True)
class ReportedDevice:
    device_id: str
    health: str
    numa_nodes: tuple[int, ...]


class PluginEndpoint:
    """A connected device plugin. Create with :meth:`connect`; close when replaced or stopped."""

    def __init__(self, resource: str, socket_path: Path, channel: Any, options: PluginOptions) -> None:
        self.resource = resource
        self.socket_path = socket_path
        self.options = options
        self._channel = channel
        self._stub = deviceplugin_v1beta1_pb2_grpc.DevicePluginStub(channel)
        self._watch_call: Any = None

    @classmethod
    async def connect(
        cls, resource: str, socket_path: Path, *, dial_timeout: float = PLUGIN_DIAL_TIMEOUT_SECONDS
    ) -> PluginEndpoint:
        """Dial like the kubelet (blocking, with a deadline) and ask for the plugin's options."""
        channel = grpc.aio.insecure_channel(
            unix_target(socket_path), options=[("grpc.default_authority", "localhost")]
        )
        try:
            options = await cls._handshake(channel, dial_timeout)
        except BaseException:
            # Also on cancellation (the kubelet stopping mid-registration): never leak the channel.
            await channel.close()
            raise
        return cls(resource, socket_path, channel, options)

    @staticmethod
    async def _handshake(channel: Any, dial_timeout: float) -> PluginOptions:
        try:
            await asyncio.wait_for(channel.channel_ready(), dial_timeout)
        except TimeoutError:
            raise RegistrationError("failed to dial device plugin: context deadline exceeded") from None
        stub = deviceplugin_v1beta1_pb2_grpc.DevicePluginStub(channel)
        try:
            reply = await stub.GetDevicePluginOptions(_pb.Empty(), timeout=dial_timeout)
        except grpc.aio.AioRpcError as exc:
            raise RegistrationError(f"failed to get device plugin options: {go_status_text(exc)}") from None
        return PluginOptions(
            pre_start_required=bool(reply.pre_start_required),
            get_preferred_allocation_available=bool(reply.get_preferred_allocation_available),
        )

    async def list_and_watch(self) -> AsyncIterator[list[ReportedDevice]]:
        """Each item is the plugin's complete current device list. Ends when the stream ends; stream
        errors propagate as ``grpc.aio.AioRpcError``."""
        call = self._stub.ListAndWatch(_pb.Empty())
        self._watch_call = call
        try:
            async for response in call:
                yield [
                    ReportedDevice(
                        device_id=str(device.ID),
                        health=str(device.health),
                        numa_nodes=tuple(int(node.ID) for node in device.topology.nodes),
                    )
                    for device in response.devices
                ]
        finally:
            call.cancel()
            self._watch_call = None

    async def preferred_allocation(self, available: Sequence[str], size: int) -> list[str]:
        request = _pb.PreferredAllocationRequest(
            container_requests=[
                _pb.ContainerPreferredAllocationRequest(
                    available_deviceIDs=list(available), must_include_deviceIDs=[], allocation_size=size
                )
            ]
        )
        reply = await self._stub.GetPreferredAllocation(request)
        if not reply.container_responses:
            return []
        return [str(device_id) for device_id in reply.container_responses[0].deviceIDs]

    async def allocate(self, device_ids: Sequence[str]) -> Any:
        """One container's ContainerAllocateResponse; raises ValueError if the plugin sent none."""
        request = _pb.AllocateRequest(
            container_requests=[_pb.ContainerAllocateRequest(devices_ids=device_ids)]
        )
        reply = await self._stub.Allocate(request)
        if len(reply.container_responses) != 1:
            raise ValueError(
                "expected 1 container response in the allocation response, "
                f"got {len(reply.container_responses)}"
            )
        return reply.container_responses[0]

    async def pre_start_container(self, device_ids: Sequence[str]) -> None:
        await self._stub.PreStartContainer(
            _pb.PreStartContainerRequest(devices_ids=device_ids), timeout=PRE_START_CONTAINER_TIMEOUT_SECONDS
        )

    async def close(self) -> None:
        if self._watch_call is not None:
            self._watch_call.cancel()
        await self._channel.close()
