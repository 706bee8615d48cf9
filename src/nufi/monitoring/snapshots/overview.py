"""One row per enabled device type, for the dashboard's tabs: identity, headline figures, trouble."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nufi.devices.spec import DeviceType
from nufi.monitoring.snapshots.snapshot import MonitoringError, Snapshot, said_of
from nufi.prom import PrometheusUnavailable


@dataclass(frozen=True)
class OverviewRow:
    """A type's summary, or None when none of its queries could be answered (`errors` say why)."""

    device_type: DeviceType
    snapshot: Snapshot | None
    errors: tuple[MonitoringError, ...] = ()


@dataclass(frozen=True)
class Overview:
    rows: tuple[OverviewRow, ...]

    @classmethod
    def of(
        cls,
        types: Sequence[DeviceType],
        outcomes: Mapping[str, Snapshot | PrometheusUnavailable],
        unusable: Mapping[str, MonitoringError],
    ) -> Overview:
        """A row per type in `types`: its snapshot, or why there is none (Prometheus did not answer,
        or the type cannot be read at all: `unusable`)."""
        rows = []
        for device_type in types:
            outcome = outcomes.get(device_type.id)
            if isinstance(outcome, Snapshot):
                rows.append(OverviewRow(device_type, outcome))
            elif isinstance(outcome, PrometheusUnavailable):
                failed = MonitoringError("prometheus", outcome.detail, said=said_of(outcome))
                rows.append(OverviewRow(device_type, None, (failed,)))
            else:
                rows.append(OverviewRow(device_type, None, (unusable[device_type.id],)))
        return cls(tuple(rows))
