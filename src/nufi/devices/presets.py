"""The official device types NuFi ships with, by id.

They are data like any custom type; admins may disable them or edit their labels and expressions,
and resetting one means going back to the preset here.
"""

from __future__ import annotations

from types import MappingProxyType

from nufi.devices.official import furiosa, nvidia, rebellions
from nufi.devices.spec import DeviceType

OFFICIAL_PRESETS: MappingProxyType[str, DeviceType] = MappingProxyType(
    {preset.id: preset for preset in (nvidia.PRESET, furiosa.PRESET, rebellions.PRESET)}
)


def official_preset(device_type_id: str) -> DeviceType | None:
    """The shipped preset with this id, or None. Device types are immutable, so sharing is safe."""
    return OFFICIAL_PRESETS.get(device_type_id)


def official_presets() -> list[DeviceType]:
    """Every shipped preset, in a stable order."""
    return list(OFFICIAL_PRESETS.values())


def is_official(device_type_id: str) -> bool:
    return device_type_id in OFFICIAL_PRESETS
