"""The DevicePlugin gRPC service the kubelet calls on the plugin's socket."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import grpc
import structlog

from nufi_mock.kubelet_api import deviceplugin_v1beta1_pb2

from .allocation import ContainerGrant, DeviceSpecMode, container_grant, preferred_devices
from .devices import DeviceBoard

_pb = deviceplugin_v1beta1_pb2
_log = structlog.get_logger("nufi_mock.deviceplugin")


class DevicePluginService:
    """Answers the kubelet from the device board; logs each allocation so it can be audited."""

    def __init__(
        self,
        board: DeviceBoard,
        *,
        resource_name: str,
        device_specs: DeviceSpecMode = DeviceSpecMode.AUTO,
        host_share: str | None = None,
    ) -> None:
        self.board = board
        self.resource_name = resource_name
        self.device_specs = device_specs
        self.host_share = host_share

    async def GetDevicePluginOptions(self, request: Any, context: Any) -> Any:
        return _pb.DevicePluginOptions(pre_start_required=False, get_preferred_allocation_available=True)

    async def ListAndWatch(self, request: Any, context: Any) -> AsyncIterator[Any]:
        seen, epoch = self.board.version, self.board.epoch
        yield self._device_list()
        while True:
            newer = await self.board.wait_newer(seen, epoch)
            if newer is None:
                return
            seen = newer
            yield self._device_list()

    async def GetPreferredAllocation(self, request: Any, context: Any) -> Any:
        numa = self.board.numa_nodes()
        responses = [
            _pb.ContainerPreferredAllocationResponse(
                deviceIDs=preferred_devices(
                    list(container.available_deviceIDs),
                    list(container.must_include_deviceIDs),
                    int(container.allocation_size),
                    numa,
                )
            )
            for container in request.container_requests
        ]
        return _pb.PreferredAllocationResponse(container_responses=responses)

    async def Allocate(self, request: Any, context: Any) -> Any:
        grants: list[ContainerGrant] = []
        for container in request.container_requests:
            ids = [str(device_id) for device_id in container.devices_ids]
            unknown = [device_id for device_id in ids if self.board.get(device_id) is None]
            if unknown:
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"unknown {self.resource_name} device(s) {', '.join(unknown)}; "
                    f"this plugin serves {', '.join(d.device_id for d in self.board.devices)}",
                )
            grants.append(self._grant(ids))
        for number, grant in enumerate(grants):
            _log.info(
                "allocate",
                resource=self.resource_name,
                container=number,
                devices=list(grant.device_ids),
                envs=grant.envs,
                device_files=[f.host_path for f in grant.device_files],
            )
        return _pb.AllocateResponse(container_responses=[_response(grant) for grant in grants])

    async def PreStartContainer(self, request: Any, context: Any) -> Any:
        return _pb.PreStartContainerResponse()

    def _grant(self, ids: list[str]) -> ContainerGrant:
        paths = {}
        for device_id in ids:
            device = self.board.get(device_id)
            assert device is not None
            paths[device_id] = device.device_path
        include = {device_id: self._wants_device_file(path) for device_id, path in paths.items()}
        return container_grant(ids, paths, include_device_file=include, host_share=self.host_share)

    def _wants_device_file(self, path: str) -> bool:
        if self.device_specs is DeviceSpecMode.ALWAYS:
            return True
        if self.device_specs is DeviceSpecMode.NEVER:
            return False
        return os.path.exists(path)

    def _device_list(self) -> Any:
        health = self.board.health()
        return _pb.ListAndWatchResponse(
            devices=[
                _pb.Device(
                    ID=device.device_id,
                    health=health[device.device_id],
                    topology=_pb.TopologyInfo(nodes=[_pb.NUMANode(ID=device.numa_node)]),
                )
                for device in self.board.devices
            ]
        )


def _response(grant: ContainerGrant) -> Any:
    return _pb.ContainerAllocateResponse(
        envs=grant.envs,
        annotations=grant.annotations,
        devices=[
            _pb.DeviceSpec(container_path=f.container_path, host_path=f.host_path, permissions=f.permissions)
            for f in grant.device_files
        ],
        mounts=[
            _pb.Mount(container_path=m.container_path, host_path=m.host_path, read_only=m.read_only)
            for m in grant.mounts
        ],
    )
