"""`nufi-mock device-plugin`: a kubelet device plugin (API v1beta1) for mock LPUs."""

from __future__ import annotations

from .allocation import VISIBLE_DEVICES_ENV, DeviceSpecMode, container_grant, preferred_devices
from .config import DEFAULT_RESOURCE_NAME, PluginConfig
from .health_file import HealthFileError, read_health, set_device_health
from .plugin import DevicePlugin

__all__ = [
    "DEFAULT_RESOURCE_NAME",
    "VISIBLE_DEVICES_ENV",
    "DevicePlugin",
    "DeviceSpecMode",
    "HealthFileError",
    "PluginConfig",
    "container_grant",
    "preferred_devices",
    "read_health",
    "set_device_health",
]
