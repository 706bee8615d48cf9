"""Monitoring: snapshots and time ranges per device type, unit normalisation, pod attribution."""

from nufi.monitoring.contracts import DeviceTypes, MonitoringPrometheus
from nufi.monitoring.ranges.request import RANGE_METRICS, RangeQuery, RangeRequest, parse_range_request
from nufi.monitoring.ranges.result import RangeResult, RangeSeries
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshots.overview import Overview, OverviewRow
from nufi.monitoring.snapshots.snapshot import (
    DeviceEntry,
    MonitoringError,
    NodeEntry,
    NotReporting,
    Snapshot,
    StaleMetric,
    Summary,
)

__all__ = [
    "RANGE_METRICS",
    "DeviceEntry",
    "DeviceTypes",
    "MonitoringError",
    "MonitoringPrometheus",
    "MonitoringService",
    "MonitoringSettings",
    "NodeEntry",
    "NotReporting",
    "Overview",
    "OverviewRow",
    "RangeQuery",
    "RangeRequest",
    "RangeResult",
    "RangeSeries",
    "Snapshot",
    "StaleMetric",
    "Summary",
    "parse_range_request",
]
