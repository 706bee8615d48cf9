"""One row per enabled device type, for the dashboard's tabs: identity, headline figures, trouble."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nufi.devices.spec import DeviceType
from nufi.monitoring.snapshot import MonitoringError, Snapshot
from nufi.monitoring.times import rfc3339


@dataclass(frozen=True)
class OverviewRow:
    """A type's summary, or None when none of its queries could be answered (`errors` say why)."""

    device_type: DeviceType
    snapshot: Snapshot | None
    errors: tuple[MonitoringError, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        snapshot = self.snapshot
        errors = (*(snapshot.errors if snapshot else ()), *self.errors)
        return {
            "device_type": self.device_type.id,
            "name": self.device_type.name,
            "vendor": self.device_type.vendor,
            "kind": self.device_type.kind,
            "resource_key": self.device_type.resource_key,
            "time": rfc3339(snapshot.time) if snapshot else None,
            "summary": snapshot.summary.to_dict() if snapshot else None,
            "stale_count": len(snapshot.stale) if snapshot else 0,
            "errors": [error.to_dict() for error in errors],
        }


@dataclass(frozen=True)
class Overview:
    rows: tuple[OverviewRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"items": [row.to_dict() for row in self.rows]}
