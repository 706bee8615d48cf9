"""PodResourcesLister v1 and v1alpha1: how exporters find out which pod holds which device."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import grpc

from nufi_mock.kubelet_api import (
    HEALTHY,
    podresources_v1_pb2,
    podresources_v1_pb2_grpc,
    podresources_v1alpha1_pb2,
    podresources_v1alpha1_pb2_grpc,
)

from .assignments import PodAssignment
from .model import ContainerAllocation, ResourceState

_v1 = podresources_v1_pb2
_v1alpha1 = podresources_v1alpha1_pb2


class PodResourcesSource(Protocol):
    def pods(self) -> list[PodAssignment]: ...

    def resources(self) -> dict[str, ResourceState]: ...


def container_devices(allocation: ContainerAllocation) -> list[Any]:
    """The kubelet reports one entry per NUMA node the devices sit on, and devices without topology in
    an entry without one."""
    without_topology: list[str] = []
    by_node: dict[int, list[str]] = {}
    for device_id in allocation.device_ids:
        nodes = allocation.numa_nodes.get(device_id, ())
        if not nodes:
            without_topology.append(device_id)
        for node in nodes:
            by_node.setdefault(node, []).append(device_id)
    entries: list[Any] = []
    if without_topology:
        entries.append(_v1.ContainerDevices(resource_name=allocation.resource, device_ids=without_topology))
    for node, ids in sorted(by_node.items()):
        entries.append(
            _v1.ContainerDevices(
                resource_name=allocation.resource,
                device_ids=ids,
                topology=_v1.TopologyInfo(nodes=[_v1.NUMANode(ID=node)]),
            )
        )
    return entries


def pod_resources_v1(pod: PodAssignment) -> Any:
    return _v1.PodResources(
        name=pod.name,
        namespace=pod.namespace,
        containers=[
            _v1.ContainerResources(
                name=container,
                devices=[entry for allocation in allocations for entry in container_devices(allocation)],
            )
            for container, allocations in pod.containers.items()
        ],
    )


def allocatable_devices(resources: Mapping[str, ResourceState]) -> list[Any]:
    """Healthy devices, one entry per device and NUMA node, like the kubelet's GetAllocatableResources."""
    entries: list[Any] = []
    for name, state in sorted(resources.items()):
        for device_id, health in sorted(state.devices.items()):
            if health != HEALTHY:
                continue
            nodes = state.numa_nodes.get(device_id, ())
            if not nodes:
                entries.append(_v1.ContainerDevices(resource_name=name, device_ids=[device_id]))
            for node in nodes:
                entries.append(
                    _v1.ContainerDevices(
                        resource_name=name,
                        device_ids=[device_id],
                        topology=_v1.TopologyInfo(nodes=[_v1.NUMANode(ID=node)]),
                    )
                )
    return entries


class PodResourcesV1:
    def __init__(self, source: PodResourcesSource) -> None:
        self._source = source

    async def List(self, request: Any, context: Any) -> Any:
        return _v1.ListPodResourcesResponse(pod_resources=[pod_resources_v1(p) for p in self._source.pods()])

    async def GetAllocatableResources(self, request: Any, context: Any) -> Any:
        return _v1.AllocatableResourcesResponse(devices=allocatable_devices(self._source.resources()))

    async def Get(self, request: Any, context: Any) -> Any:
        for pod in self._source.pods():
            if pod.name == request.pod_name and pod.namespace == request.pod_namespace:
                return _v1.GetPodResourcesResponse(pod_resources=pod_resources_v1(pod))
        await context.abort(
            grpc.StatusCode.NOT_FOUND,
            f"pod {request.pod_name} in namespace {request.pod_namespace} not found",
        )
        raise AssertionError("context.abort returned")


class PodResourcesV1Alpha1:
    def __init__(self, source: PodResourcesSource) -> None:
        self._source = source

    async def List(self, request: Any, context: Any) -> Any:
        return _v1alpha1.ListPodResourcesResponse(
            pod_resources=[_alpha_pod(pod) for pod in self._source.pods()]
        )


def _alpha_pod(pod: PodAssignment) -> Any:
    containers = []
    for container, allocations in pod.containers.items():
        devices = [
            _v1alpha1.ContainerDevices(resource_name=entry.resource_name, device_ids=list(entry.device_ids))
            for allocation in allocations
            for entry in container_devices(allocation)
        ]
        containers.append(_v1alpha1.ContainerResources(name=container, devices=devices))
    return _v1alpha1.PodResources(name=pod.name, namespace=pod.namespace, containers=containers)


def pod_resources_services(source: PodResourcesSource) -> list[Callable[[Any], None]]:
    """Adders for both API versions, for :func:`sockets.serve_unix`."""
    v1 = PodResourcesV1(source)
    v1alpha1 = PodResourcesV1Alpha1(source)
    return [
        lambda server: podresources_v1_pb2_grpc.add_PodResourcesListerServicer_to_server(v1, server),
        lambda server: podresources_v1alpha1_pb2_grpc.add_PodResourcesListerServicer_to_server(
            v1alpha1, server
        ),
    ]
