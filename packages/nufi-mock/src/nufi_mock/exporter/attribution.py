"""Which pod holds which device, from the kubelet's PodResources API, as the vendors' exporters ask it:
devices of a device plugin by resource name, and (v1) devices of DRA claims by driver name."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import grpc

from nufi_mock.kubelet_api import (
    podresources_v1_pb2,
    podresources_v1_pb2_grpc,
    podresources_v1alpha1_pb2,
    podresources_v1alpha1_pb2_grpc,
)

from .readings import PodRef

PodResourcesApi = Literal["v1", "v1alpha1"]

# Furiosa's plugin names partitions "<uuid>_cores_<start>-<end>"; the device is the part before.
_PARTITION_SEPARATOR = "_cores_"


@dataclass(frozen=True)
class ContainerDevices:
    namespace: str
    pod: str
    container: str
    resource: str
    """The extended resource of a device plugin, or the driver of a DRA claim's devices."""
    device_ids: tuple[str, ...]


def resource_matches(resource: str, patterns: Sequence[str]) -> bool:
    """A pattern ending in ``*`` matches by prefix, any other one exactly."""
    return any(
        resource.startswith(pattern[:-1]) if pattern.endswith("*") else resource == pattern
        for pattern in patterns
    )


def base_device_id(device_id: str) -> str:
    return device_id.split(_PARTITION_SEPARATOR, 1)[0]


def owners(
    entries: Iterable[ContainerDevices], patterns: Sequence[str], resolve: Callable[[str], int | None]
) -> dict[int, PodRef]:
    """Device index -> the pod holding it, for the resources matching ``patterns``. Unknown device ids
    are skipped; when two containers claim a device the last one wins, as in the RBLN exporter."""
    found: dict[int, PodRef] = {}
    for entry in entries:
        if not resource_matches(entry.resource, patterns):
            continue
        for device_id in entry.device_ids:
            index = resolve(base_device_id(device_id))
            if index is not None:
                found[index] = PodRef(entry.namespace, entry.pod, entry.container)
    return found


def flatten(response: Any) -> list[ContainerDevices]:
    """The device entries of a v1 or v1alpha1 ListPodResourcesResponse (same field names in both)."""
    return [
        ContainerDevices(
            namespace=str(pod.namespace),
            pod=str(pod.name),
            container=str(container.name),
            resource=str(devices.resource_name),
            device_ids=tuple(str(d) for d in devices.device_ids),
        )
        for pod in response.pod_resources
        for container in pod.containers
        for devices in container.devices
    ]


def flatten_dynamic(response: Any) -> list[ContainerDevices]:
    """The DRA devices of a v1 ListPodResourcesResponse, one entry per claim's device, named by driver
    (a driver name has no ``/``, so it never matches a resource pattern by accident)."""
    return [
        ContainerDevices(
            namespace=str(pod.namespace),
            pod=str(pod.name),
            container=str(container.name),
            resource=str(resource.driver_name),
            device_ids=(str(resource.device_name),),
        )
        for pod in response.pod_resources
        for container in pod.containers
        for claim in container.dynamic_resources
        for resource in claim.claim_resources
    ]


class PodResourcesClient:
    """Calls ``List`` on one node's PodResources socket; the channel reconnects by itself when the
    kubelet re-creates the socket."""

    def __init__(self, socket: Path, api: PodResourcesApi, *, timeout: float = 2.0) -> None:
        self.socket = socket
        self.api = api
        self._timeout = timeout
        self._channel: Any = None

    async def list(self) -> list[ContainerDevices]:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(f"unix://{self.socket.absolute()}")
        if self.api == "v1":
            stub: Any = podresources_v1_pb2_grpc.PodResourcesListerStub(self._channel)
            response = await stub.List(podresources_v1_pb2.ListPodResourcesRequest(), timeout=self._timeout)
            return flatten(response) + flatten_dynamic(response)
        stub = podresources_v1alpha1_pb2_grpc.PodResourcesListerStub(self._channel)
        request = podresources_v1alpha1_pb2.ListPodResourcesRequest()
        return flatten(await stub.List(request, timeout=self._timeout))

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
