"""Values as a person reads them in a table: units, human sizes, and "not reported"."""

from __future__ import annotations

_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def human_bytes(value: float | None) -> str | None:
    """`31457280000` → `29.3 GiB`; None stays None."""
    if value is None:
        return None
    size = float(value)
    for unit in _BINARY_UNITS:
        if abs(size) < 1024 or unit == _BINARY_UNITS[-1]:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def percent(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f} %"


def celsius(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f} °C"


def watts(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f} W"


def memory(used: float | None, total: float | None) -> str | None:
    """`used / total` in human sizes; a side that is missing shows as `?`, both missing as None."""
    if used is None and total is None:
        return None
    return f"{human_bytes(used) or '?'} / {human_bytes(total) or '?'}"
