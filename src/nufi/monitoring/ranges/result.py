"""Time series of one metric of a device type, normalised (%, bytes, °C, W) and joined in memory."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from nufi.devices.spec import DeviceType, MetricKey
from nufi.devices.units import MemoryUnit, to_bytes
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.monitoring.ranges.request import RangeMetric, RangeRequest
from nufi.monitoring.snapshots.snapshot import MonitoringError
from nufi.prom import QueryResult

Point = tuple[float, float]
ValueFilter = Callable[[MetricKey, float], bool]
SeriesKey = tuple[str, str | None]
UNITS: dict[RangeMetric, str] = {
    "utilization": "percent",
    "memory": "bytes",
    "temperature": "celsius",
    "power": "watts",
}


@dataclass(frozen=True)
class RangeSeries:
    """One device (or node, with `device` None). For memory, `values` is the memory in use and `total`
    the memory size; for the other metrics `total` is None."""

    node: str
    device: str | None
    values: tuple[Point, ...]
    total: tuple[Point, ...] | None = None


@dataclass(frozen=True)
class RangeResult:
    device_type: str
    request: RangeRequest
    reported: bool
    series: tuple[RangeSeries, ...]
    errors: tuple[MonitoringError, ...] = ()


def assemble_range(
    device_type: DeviceType,
    request: RangeRequest,
    outcomes: Mapping[MetricKey, QueryResult | NufiError],
    expressions: Mapping[MetricKey, str],
    *,
    usable: ValueFilter,
) -> RangeResult:
    """Join one `query_range` outcome per series family into series per device or node."""
    labels = device_type.labels
    memory = device_type.metrics.memory
    unit = memory.unit if memory is not None else MemoryUnit.BYTES
    errors: list[MonitoringError] = []
    points: dict[MetricKey, dict[SeriesKey, list[Point]]] = {}
    for key, outcome in outcomes.items():
        if isinstance(outcome, NufiError):
            errors.append(MonitoringError("prometheus", outcome.detail, metric=key, query=expressions[key]))
            continue
        found, unplaced = _series_of(key, outcome, labels.node, labels.device, request, usable)
        if unplaced:
            said = _unplaced(unplaced, labels.node, labels.device if request.by == "device" else None)
            errors.append(
                MonitoringError("prometheus", said.text("en"), metric=key, query=expressions[key], said=said)
            )
        if key.startswith("memory"):
            found = {k: [(t, to_bytes(v, unit)) for t, v in pts] for k, pts in found.items()}
        points[key] = found
    if request.metric == "memory":
        series = _memory_series(points)
    else:
        series = [
            RangeSeries(k[0], k[1], tuple(v)) for k, v in sorted(points.get(request.metric, {}).items())
        ]
    return RangeResult(device_type.id, request, bool(expressions), tuple(series), tuple(errors))


def _series_of(
    key: MetricKey,
    result: QueryResult,
    node_label: str,
    device_label: str,
    request: RangeRequest,
    usable: ValueFilter,
) -> tuple[dict[SeriesKey, list[Point]], int]:
    found: dict[SeriesKey, list[Point]] = {}
    unplaced = 0
    for series in result.series:
        node = series.metric.get(node_label)
        device = series.metric.get(device_label) if request.by == "device" else None
        if not node or (request.by == "device" and not device):
            unplaced += 1
            continue
        kept = [(t, v) for t, v in series.points if usable(key, v)]
        found.setdefault((node, device), []).extend(kept)
    return found, unplaced


def _memory_series(points: Mapping[MetricKey, Mapping[SeriesKey, Sequence[Point]]]) -> list[RangeSeries]:
    used = points.get("memory_used", {})
    total = points.get("memory_total")
    free = points.get("memory_free")
    if total is None and free is not None:
        total = {key: _added(used.get(key, ()), pts) for key, pts in free.items()}
    total = total or {}
    return [
        RangeSeries(key[0], key[1], tuple(used.get(key, ())), tuple(total.get(key, ())))
        for key in sorted(set(used) | set(total))
    ]


def _added(left: Sequence[Point], right: Sequence[Point]) -> list[Point]:
    """Point-wise sum where both have a point at the same instant."""
    by_time = dict(left)
    return [(t, by_time[t] + v) for t, v in right if t in by_time]


def _unplaced(count: int, node_label: str, device_label: str | None) -> Message:
    """Series left out for want of the labels that place them (the device's only when grouped by it)."""
    if device_label is None:
        return Message("monitoring.series_unplaced", {"count": count, "node_label": node_label})
    return Message(
        "monitoring.series_unplaced_device",
        {"count": count, "node_label": node_label, "device_label": device_label},
    )


def limit_series(result: RangeResult) -> RangeResult:
    """At most `request.series` series of `result`, the highest by `request.top`: the last value in the
    window (`latest`) or the highest (`peak`), memory by the memory in use; kept in their order. Chosen
    here, after the one query every reader of the window shares, so readers asking for any number of
    series still share it, and only the series kept are sent."""
    limit = result.request.series
    if limit is None or len(result.series) <= limit:
        return result
    rank = _peak if result.request.top == "peak" else _latest
    kept = set(sorted(range(len(result.series)), key=lambda i: rank(result.series[i]), reverse=True)[:limit])
    return replace(result, series=tuple(s for i, s in enumerate(result.series) if i in kept))


def _latest(series: RangeSeries) -> float:
    return series.values[-1][1] if series.values else -math.inf


def _peak(series: RangeSeries) -> float:
    return max((value for _, value in series.values), default=-math.inf)
