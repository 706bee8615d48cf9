"""A minimal device plugin over grpc.aio for testing the simulated kubelet: it records what the kubelet
asked and answers predictably."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc

from nufi_mock.kubelet_api import (
    HEALTHY,
    UNHEALTHY,
    VERSION,
    deviceplugin_v1beta1_pb2,
    deviceplugin_v1beta1_pb2_grpc,
)

_pb = deviceplugin_v1beta1_pb2
RES = "nufi.example/lpu"
DeviceRow = tuple[str, str, tuple[int, ...]]
"""(device id, health, NUMA nodes)"""


def devices(count: int = 4, *, unhealthy: tuple[str, ...] = ()) -> list[DeviceRow]:
    """lpu-0/1 on NUMA 0, lpu-2 on NUMA 1, the rest without topology."""
    numa = {0: (0,), 1: (0,), 2: (1,)}
    return [
        (f"lpu-{i}", UNHEALTHY if f"lpu-{i}" in unhealthy else HEALTHY, numa.get(i, ())) for i in range(count)
    ]


class FakePlugin:
    """A device plugin that records what the kubelet asked and answers predictably."""

    def __init__(self, plugin_dir: Path, socket_name: str, rows: list[DeviceRow], **options: bool) -> None:
        self.plugin_dir = plugin_dir
        self.socket_path = plugin_dir / socket_name
        self.rows = rows
        self.options = _pb.DevicePluginOptions(**options)
        self.options_error: str | None = None
        self.allocate_error: str | None = None
        self.prefer: Callable[[list[str], int], list[str]] | None = None
        self.options_calls = 0
        self.preferred_requests: list[tuple[list[str], int]] = []
        self.allocate_requests: list[list[str]] = []
        self.pre_start_requests: list[list[str]] = []
        self._streams: list[asyncio.Queue[list[DeviceRow] | None]] = []
        self.no_open_streams = asyncio.Event()
        self._server: Any = None

    async def serve(self) -> None:
        self._server = grpc.aio.server()
        deviceplugin_v1beta1_pb2_grpc.add_DevicePluginServicer_to_server(self, self._server)
        self._server.add_insecure_port(f"unix://{self.socket_path}")
        await self._server.start()

    async def register(self, *, version: str = VERSION, resource: str = RES, endpoint: str = "") -> None:
        async with grpc.aio.insecure_channel(f"unix://{self.plugin_dir / 'kubelet.sock'}") as channel:
            await deviceplugin_v1beta1_pb2_grpc.RegistrationStub(channel).Register(
                _pb.RegisterRequest(
                    version=version,
                    endpoint=endpoint or self.socket_path.name,
                    resource_name=resource,
                    options=self.options,
                ),
                timeout=5,
            )

    def publish(self, rows: list[DeviceRow]) -> None:
        self.rows = rows
        for queue in self._streams:
            queue.put_nowait(rows)

    def end_streams(self) -> None:
        for queue in self._streams:
            queue.put_nowait(None)

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(None)
            self._server = None

    async def GetDevicePluginOptions(self, request: Any, context: Any) -> Any:
        self.options_calls += 1
        if self.options_error:
            await context.abort(grpc.StatusCode.INTERNAL, self.options_error)
        return self.options

    async def ListAndWatch(self, request: Any, context: Any) -> AsyncIterator[Any]:
        queue: asyncio.Queue[list[DeviceRow] | None] = asyncio.Queue()
        queue.put_nowait(self.rows)
        self._streams.append(queue)
        self.no_open_streams.clear()
        try:
            while (rows := await queue.get()) is not None:
                yield _pb.ListAndWatchResponse(
                    devices=[
                        _pb.Device(
                            ID=device_id,
                            health=health,
                            topology=_pb.TopologyInfo(nodes=[_pb.NUMANode(ID=n) for n in numa])
                            if numa
                            else None,
                        )
                        for device_id, health, numa in rows
                    ]
                )
        finally:
            self._streams.remove(queue)
            if not self._streams:
                self.no_open_streams.set()

    async def GetPreferredAllocation(self, request: Any, context: Any) -> Any:
        responses = []
        for container in request.container_requests:
            available, size = list(container.available_deviceIDs), int(container.allocation_size)
            self.preferred_requests.append((available, size))
            chosen = self.prefer(available, size) if self.prefer else available[:size]
            responses.append(_pb.ContainerPreferredAllocationResponse(deviceIDs=chosen))
        return _pb.PreferredAllocationResponse(container_responses=responses)

    async def Allocate(self, request: Any, context: Any) -> Any:
        if self.allocate_error:
            await context.abort(grpc.StatusCode.INTERNAL, self.allocate_error)
        responses = []
        for container in request.container_requests:
            ids = list(container.devices_ids)
            self.allocate_requests.append(ids)
            responses.append(
                _pb.ContainerAllocateResponse(
                    envs={"MOCK_VISIBLE_DEVICES": ",".join(ids)},
                    mounts=[_pb.Mount(container_path="/opt/mock", host_path="/var/lib/mock", read_only=True)],
                    devices=[
                        _pb.DeviceSpec(container_path=f"/dev/{i}", host_path=f"/dev/{i}", permissions="rw")
                        for i in ids
                    ],
                    annotations={"mock.example/devices": ",".join(ids)},
                    cdi_devices=[_pb.CDIDevice(name=f"mock.example/lpu={i}") for i in ids],
                )
            )
        return _pb.AllocateResponse(container_responses=responses)

    async def PreStartContainer(self, request: Any, context: Any) -> Any:
        self.pre_start_requests.append(list(request.devices_ids))
        return _pb.PreStartContainerResponse()
