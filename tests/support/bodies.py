"""Monitoring results as the API writes them, for tests that check the JSON a client would read."""

from __future__ import annotations

from typing import Any

from nufi.api.schemas.monitoring import OverviewView, SnapshotView
from nufi.api.schemas.monitoring_range import RangeView
from nufi.monitoring.ranges.result import RangeResult
from nufi.monitoring.snapshots.overview import Overview
from nufi.monitoring.snapshots.snapshot import Snapshot


def as_json(result: Snapshot | Overview | RangeResult) -> dict[str, Any]:
    """The response body of a snapshot, overview or range, as decoded JSON."""
    view: SnapshotView | OverviewView | RangeView
    if isinstance(result, Snapshot):
        view = SnapshotView.of(result)
    elif isinstance(result, Overview):
        view = OverviewView.of(result)
    else:
        view = RangeView.of(result)
    body: dict[str, Any] = view.model_dump(mode="json")
    return body
