"""The device catalog: device types as data, the DeviceFetcher interface, official presets, checks."""

from nufi.cluster.resources import is_valid_resource_key, resource_key_problems
from nufi.devices.capacity import Inventory, NodeInventory, build_inventory
from nufi.devices.catalog import CatalogEntry
from nufi.devices.checks import (
    MetricCheck,
    MetricsCheck,
    MetricsCheckRequest,
    NodeCapacity,
    ResourceKeyCheck,
    ResourceKeyCheckRequest,
    check_metrics,
    check_resource_key,
)
from nufi.devices.fetcher import DeviceFetcher, GenericFetcher, PrometheusQueries
from nufi.devices.fetcher_registry import ENTRY_POINT_GROUP, FetcherRegistry, PluginFailure, UnknownFetcher
from nufi.devices.presets import OFFICIAL_PRESETS, is_official, official_preset, official_presets
from nufi.devices.readings import DeviceReading, MetricProblem, Readings
from nufi.devices.spec import (
    DeviceType,
    DeviceTypeCreate,
    DeviceTypeUpdate,
    Labels,
    LabelsDraft,
    Memory,
    MemoryDraft,
    Metrics,
    MetricsDraft,
    ThermalDefaults,
)
from nufi.devices.units import BYTES_PER_UNIT, MemoryUnit, to_bytes
from nufi.devices.validation_errors import FieldError, field_errors

__all__ = [
    "BYTES_PER_UNIT",
    "ENTRY_POINT_GROUP",
    "OFFICIAL_PRESETS",
    "CatalogEntry",
    "DeviceFetcher",
    "DeviceReading",
    "DeviceType",
    "DeviceTypeCreate",
    "DeviceTypeUpdate",
    "FetcherRegistry",
    "FieldError",
    "GenericFetcher",
    "Inventory",
    "Labels",
    "LabelsDraft",
    "Memory",
    "MemoryDraft",
    "MemoryUnit",
    "MetricCheck",
    "MetricProblem",
    "Metrics",
    "MetricsCheck",
    "MetricsCheckRequest",
    "MetricsDraft",
    "NodeCapacity",
    "NodeInventory",
    "PluginFailure",
    "PrometheusQueries",
    "Readings",
    "ResourceKeyCheck",
    "ResourceKeyCheckRequest",
    "ThermalDefaults",
    "UnknownFetcher",
    "build_inventory",
    "check_metrics",
    "check_resource_key",
    "field_errors",
    "is_official",
    "is_valid_resource_key",
    "official_preset",
    "official_presets",
    "resource_key_problems",
    "to_bytes",
]
