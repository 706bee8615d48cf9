"""Pick devices for one container and ask the plugin to allocate them, as the kubelet does at admission."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from .gotext import go_status_text
from .model import AllocationError, ContainerAllocation, DeviceSpec, Mount
from .plugin_client import PluginEndpoint


@dataclass(frozen=True)
class AllocationRequest:
    pod_namespace: str
    pod_name: str
    pod_uid: str
    container: str
    resource: str
    count: int


def choose_devices(available: Sequence[str], count: int, preferred: Sequence[str] | None = None) -> list[str]:
    """The plugin's preference when it names exactly ``count`` distinct available devices, otherwise the
    first ``count`` available ones (the kubelet also falls back when a preference does not fit)."""
    if preferred is not None:
        offered = set(available)
        usable = list(dict.fromkeys(device for device in preferred if device in offered))
        if len(usable) == count:
            return usable
    return list(available[:count])


async def allocate_with_plugin(
    endpoint: PluginEndpoint,
    request: AllocationRequest,
    available: Sequence[str],
    numa_nodes: Mapping[str, tuple[int, ...]],
) -> ContainerAllocation:
    """Run GetPreferredAllocation (if offered), Allocate and PreStartContainer (if required).

    Raises AllocationError naming the failing call; the caller records nothing in that case."""
    resource = request.resource
    preferred: list[str] | None = None
    try:
        if endpoint.options.get_preferred_allocation_available:
            preferred = await endpoint.preferred_allocation(available, request.count)
        chosen = choose_devices(available, request.count, preferred)
        response = await endpoint.allocate(chosen)
        if endpoint.options.pre_start_required:
            await endpoint.pre_start_container(chosen)
    except grpc.aio.AioRpcError as exc:
        raise AllocationError(
            f"device plugin for {resource} failed while allocating to container {request.container!r} "
            f"of pod {request.pod_namespace}/{request.pod_name}: {go_status_text(exc)}"
        ) from None
    except ValueError as exc:
        raise AllocationError(f"device plugin for {resource} answered Allocate wrongly: {exc}") from None
    return _allocation(request, chosen, response, numa_nodes)


def _allocation(
    request: AllocationRequest,
    chosen: Sequence[str],
    response: Any,
    numa_nodes: Mapping[str, tuple[int, ...]],
) -> ContainerAllocation:
    return ContainerAllocation(
        pod_namespace=request.pod_namespace,
        pod_name=request.pod_name,
        pod_uid=request.pod_uid,
        container=request.container,
        resource=request.resource,
        device_ids=tuple(chosen),
        envs={str(k): str(v) for k, v in response.envs.items()},
        mounts=tuple(
            Mount(str(m.container_path), str(m.host_path), bool(m.read_only)) for m in response.mounts
        ),
        devices=tuple(
            DeviceSpec(str(d.container_path), str(d.host_path), str(d.permissions)) for d in response.devices
        ),
        annotations={str(k): str(v) for k, v in response.annotations.items()},
        cdi_devices=tuple(str(c.name) for c in response.cdi_devices),
        numa_nodes={device: numa_nodes[device] for device in chosen if numa_nodes.get(device)},
    )
