"""PodResourcesLister v1 and v1alpha1: how exporters find out which pod holds which device, by device
plugin or (v1 only, as the kubelet serves it) through DRA claims."""

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
from .dra_manager import ContainerClaim, DynamicPod
from .model import ContainerAllocation, ResourceState

_v1 = podresources_v1_pb2
_v1alpha1 = podresources_v1alpha1_pb2


class PodResourcesSource(Protocol):
    def pods(self) -> list[PodAssignment]: ...

    def resources(self) -> dict[str, ResourceState]: ...

    def dynamic_pods(self) -> list[DynamicPod]: ...


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


def dynamic_resource(held: ContainerClaim) -> Any:
    """One claim of one container, with each of its devices there, as the kubelet reports it."""
    return _v1.DynamicResource(
        claim_name=held.claim.name,
        claim_namespace=held.claim.namespace,
        claim_resources=[
            _v1.ClaimResource(
                cdi_devices=[_v1.CDIDevice(name=cdi) for cdi in device.cdi_ids],
                driver_name=device.driver,
                pool_name=device.pool,
                device_name=device.device,
            )
            for device in held.devices
        ],
    )


def pod_resources_v1(pod: PodAssignment | None, dynamic: DynamicPod | None = None) -> Any:
    """A pod's devices from the device plugins, its claims' devices from DRA, or both."""
    first = pod or dynamic
    assert first is not None
    devices = pod.containers if pod is not None else {}
    claims = dynamic.containers if dynamic is not None else {}
    return _v1.PodResources(
        name=first.name,
        namespace=first.namespace,
        containers=[
            _v1.ContainerResources(
                name=container,
                devices=[entry for held in devices.get(container, []) for entry in container_devices(held)],
                dynamic_resources=[dynamic_resource(held) for held in claims.get(container, [])],
            )
            for container in dict.fromkeys([*devices, *claims])
        ],
    )


def pods_v1(source: PodResourcesSource) -> list[Any]:
    plugin = {pod.uid: pod for pod in source.pods()}
    dynamic = {pod.uid: pod for pod in source.dynamic_pods()}
    return [pod_resources_v1(plugin.get(uid), dynamic.get(uid)) for uid in dict.fromkeys([*plugin, *dynamic])]


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
        return _v1.ListPodResourcesResponse(pod_resources=pods_v1(self._source))

    async def GetAllocatableResources(self, request: Any, context: Any) -> Any:
        return _v1.AllocatableResourcesResponse(devices=allocatable_devices(self._source.resources()))

    async def Get(self, request: Any, context: Any) -> Any:
        for pod in pods_v1(self._source):
            if pod.name == request.pod_name and pod.namespace == request.pod_namespace:
                return _v1.GetPodResourcesResponse(pod_resources=pod)
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
