"""What the simulated kubelet device manager knows and hands out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from nufi_mock.kubelet_api import HEALTHY


class DeviceListener(Protocol):
    """Receives the device counts the kubelet would write into node status."""

    async def devices_changed(self, node: str, resource: str, capacity: int, allocatable: int) -> None:
        """Capacity 0 and allocatable 0 after the stop grace period mean: remove the resource from node
        status."""


class AllocationError(Exception):
    """Devices could not be allocated; nothing was recorded."""


class RegistrationError(Exception):
    """A device plugin's Register call is refused; the message is what the kubelet would answer."""


@dataclass(frozen=True)
class PluginOptions:
    pre_start_required: bool = False
    get_preferred_allocation_available: bool = False


@dataclass(frozen=True)
class ResourceState:
    """One extended resource as the device manager sees it."""

    resource: str
    devices: Mapping[str, str]
    """Device id -> ``Healthy`` / ``Unhealthy``, from the latest ListAndWatch response."""
    numa_nodes: Mapping[str, tuple[int, ...]]
    """Device id -> NUMA node ids the plugin reported; absent when it reported no topology."""
    endpoint: Path | None
    """Plugin socket while a plugin is connected; None after its stream ended or the kubelet restarted."""
    options: PluginOptions = field(default_factory=PluginOptions)

    @property
    def capacity(self) -> int:
        return len(self.devices)

    @property
    def allocatable(self) -> int:
        return sum(1 for health in self.devices.values() if health == HEALTHY)


@dataclass(frozen=True)
class Mount:
    container_path: str
    host_path: str
    read_only: bool


@dataclass(frozen=True)
class DeviceSpec:
    container_path: str
    host_path: str
    permissions: str


@dataclass(frozen=True)
class ContainerAllocation:
    """Devices of one resource assigned to one container, with what the plugin said to inject."""

    pod_namespace: str
    pod_name: str
    pod_uid: str
    container: str
    resource: str
    device_ids: tuple[str, ...]
    envs: Mapping[str, str] = field(default_factory=dict)
    mounts: tuple[Mount, ...] = ()
    devices: tuple[DeviceSpec, ...] = ()
    annotations: Mapping[str, str] = field(default_factory=dict)
    cdi_devices: tuple[str, ...] = ()
    numa_nodes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Topology of the assigned devices at allocation time, as the kubelet checkpoints it."""
