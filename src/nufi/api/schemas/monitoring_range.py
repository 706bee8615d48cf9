"""Response body of a monitoring time range, built from a `nufi.monitoring.ranges.result.RangeResult`.

A point is `[unix seconds, value]`. Memory series carry `used` and `total` in whole bytes; the other
metrics carry `values` in their unit. `start` and `end` are the window answered: the one asked, aligned
to the step so that readers of the same range share one query (`nufi.monitoring.ranges.cache`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nufi.api.schemas.monitoring import MonitoringErrorView
from nufi.api.schemas.values import Bytes, Instant
from nufi.monitoring.ranges.request import Grouping, RangeMetric
from nufi.monitoring.ranges.result import UNITS, RangeResult, RangeSeries


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class SeriesView(_View):
    node: str
    device: str | None = Field(description="null in series per node")
    values: list[tuple[float, float]]


class MemorySeriesView(_View):
    node: str
    device: str | None = Field(description="null in series per node")
    used: list[tuple[float, Bytes]] = Field(description="memory in use")
    total: list[tuple[float, Bytes]] = Field(description="memory size, where used and free both have a point")


class RangeView(_View):
    device_type: str
    metric: RangeMetric
    unit: str = Field(description="percent, bytes, celsius or watts")
    reported: bool = Field(description="false when the type does not report the metric at all")
    by: Grouping
    node: str | None
    device: str | None
    start: Instant = Field(description="the window's first point: start asked, aligned to the step")
    end: Instant = Field(
        description="the window's last point: end asked, rounded down to a multiple of the step"
    )
    step_seconds: float
    series: list[SeriesView | MemorySeriesView]
    errors: list[MonitoringErrorView]

    @classmethod
    def of(cls, result: RangeResult) -> RangeView:
        request = result.request
        return cls(
            device_type=result.device_type,
            metric=request.metric,
            unit=UNITS[request.metric],
            reported=result.reported,
            by=request.by,
            node=request.node,
            device=request.device,
            start=request.start,
            end=request.end,
            step_seconds=request.step_seconds,
            series=[_series(s, memory=request.metric == "memory") for s in result.series],
            errors=[MonitoringErrorView.model_validate(error) for error in result.errors],
        )


def _series(series: RangeSeries, *, memory: bool) -> SeriesView | MemorySeriesView:
    if memory:
        return MemorySeriesView(
            node=series.node, device=series.device, used=list(series.values), total=list(series.total or ())
        )
    return SeriesView(node=series.node, device=series.device, values=list(series.values))
