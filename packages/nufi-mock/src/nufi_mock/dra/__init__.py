"""`nufi-mock dra-driver`: a DRA driver for mock LPUs, publishing ResourceSlices and serving the kubelet."""

from .config import DRIVER_NAME, EXTENDED_RESOURCE_NAME, MODELS, DriverConfig, LpuModel, device_class
from .slices import POOL_DEVICE_LIMIT, device_entry, pool_slices

__all__ = [
    "DRIVER_NAME",
    "EXTENDED_RESOURCE_NAME",
    "MODELS",
    "POOL_DEVICE_LIMIT",
    "DriverConfig",
    "LpuModel",
    "device_class",
    "device_entry",
    "pool_slices",
]
