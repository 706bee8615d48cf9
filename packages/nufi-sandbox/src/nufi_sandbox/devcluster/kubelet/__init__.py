"""The dev cluster's kubelet, gRPC side: device plugin registration, allocation and PodResources."""

from .assignments import PodAssignment
from .manager import DeviceManager
from .model import (
    AllocationError,
    ContainerAllocation,
    DeviceListener,
    DeviceSpec,
    Mount,
    PluginOptions,
    RegistrationError,
    ResourceState,
)
from .resource_name import extended_resource_name_problems, is_extended_resource_name

__all__ = [
    "AllocationError",
    "ContainerAllocation",
    "DeviceListener",
    "DeviceManager",
    "DeviceSpec",
    "Mount",
    "PluginOptions",
    "PodAssignment",
    "RegistrationError",
    "ResourceState",
    "extended_resource_name_problems",
    "is_extended_resource_name",
]
