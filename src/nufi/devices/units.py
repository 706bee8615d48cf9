"""Memory units a device type may report in, and their size in bytes.

This is the one place the factors live: readings, checks and the dashboard all convert through it.
"""

from __future__ import annotations

from enum import StrEnum


class MemoryUnit(StrEnum):
    """The unit of a device type's memory expressions, as the admin picks it in the wizard."""

    BYTES = "bytes"
    KIB = "KiB"
    MIB = "MiB"
    GIB = "GiB"
    KB = "KB"
    MB = "MB"
    GB = "GB"


BYTES_PER_UNIT: dict[MemoryUnit, int] = {
    MemoryUnit.BYTES: 1,
    MemoryUnit.KIB: 1024,
    MemoryUnit.MIB: 1024**2,
    MemoryUnit.GIB: 1024**3,
    MemoryUnit.KB: 1000,
    MemoryUnit.MB: 1000**2,
    MemoryUnit.GB: 1000**3,
}


def to_bytes(value: float, unit: MemoryUnit) -> float:
    """`value` measured in `unit`, in bytes."""
    return value * BYTES_PER_UNIT[unit]
