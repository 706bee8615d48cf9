"""One row per enabled device type, for the dashboard's tabs: identity, headline figures, trouble."""

from __future__ import annotations

from dataclasses import dataclass

from nufi.devices.spec import DeviceType
from nufi.monitoring.snapshot import MonitoringError, Snapshot


@dataclass(frozen=True)
class OverviewRow:
    """A type's summary, or None when none of its queries could be answered (`errors` say why)."""

    device_type: DeviceType
    snapshot: Snapshot | None
    errors: tuple[MonitoringError, ...] = ()


@dataclass(frozen=True)
class Overview:
    rows: tuple[OverviewRow, ...]
