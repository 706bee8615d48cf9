"""Charts over time for the monitoring page: one metric of one type, per node, over a chosen range.

Ranges come from the monitoring service's time ranges (`history`), asked for exactly what the chart
draws: per node, the `MAX_SERIES` nodes busiest at the range's end (only they are sent), at most
`CHART_POINTS` points per line. Every open chart of a type shares one Prometheus query per step (the
service aligns the window), so only the first chart of a step waits for Prometheus. ECharts ships with
NiceGUI, so the chart works offline.
"""

from __future__ import annotations

import time
from typing import Any

from nicegui import ui

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.monitoring.ranges.request import RangeQuery
from nufi.monitoring.ranges.result import RangeResult
from nufi.monitoring.service import MonitoringService
from nufi.ui import context
from nufi.ui.i18n import Translator

RANGES: dict[str, int] = {"15m": 900, "1h": 3600, "6h": 6 * 3600, "24h": 86400}
METRICS = ("utilization", "memory", "temperature", "power")
MAX_SERIES = 20
# Points per line. Prometheus' work grows with the steps of a range times the series it evaluates
# (8,000 for 1,000 nodes x 8 GPUs, each through the type's expression): measured on a busy two-core
# machine, 121 steps cost a third less than 241 for the last hour, and 120 points still draw a
# smooth line a page wide.
CHART_POINTS = 120
_GIB = 1024**3


class Charts:
    """The chart section of one open monitoring page."""

    def __init__(self, principal: Principal, t: Translator, device_type_id: str) -> None:
        self.principal = principal
        self.t = t
        self.device_type_id = device_type_id
        self.metric = "utilization"
        self.range = "1h"
        # Whether the range is settled: picked by the reader, or fitted once to the data's age.
        self.settled = False
        self.range_toggle: ui.toggle | None = None

    def build(self) -> None:
        """The chart's controls, and the chart itself once its range is read: a range over a
        thousand nodes takes longer than the table above it, which must not wait for it."""
        with ui.row().classes("items-center gap-4 w-full mt-4"):
            ui.label(self.t("charts.title")).classes("text-lg font-semibold")
            ui.toggle(
                {m: self.t(f"charts.metric.{m}") for m in METRICS},
                value=self.metric,
                on_change=lambda event: self.choose(metric=str(event.value)),
            ).props('no-caps dense data-testid="chart-metric"')
            self.range_toggle = (
                ui.toggle(
                    {r: r for r in RANGES},
                    value=self.range,
                    on_change=lambda event: self.choose(span=str(event.value)),
                )
                .props('no-caps dense data-testid="chart-range"')
                .mark("chart-range")
            )
        self.area = ui.column().classes("w-full")
        with self.area:
            ui.label(self.t("charts.loading")).classes("text-sm text-slate-500")
        ui.timer(0.01, self.load, once=True)

    async def choose(self, *, metric: str | None = None, span: str | None = None) -> None:
        self.settled = True
        self.metric = metric or self.metric
        self.range = span or self.range
        await self.load()

    async def load(self) -> None:
        monitoring = context.services().monitoring
        try:
            result: RangeResult | str = await read_chart(
                monitoring, self.principal, self.device_type_id, self.metric, RANGES[self.range]
            )
        except NufiError as exc:
            result = exc.text(self.t.language)
        if self.area.is_deleted:
            return  # the page was left (or redrawn) while the range was read
        if not self.settled and not isinstance(result, str):
            self.settled = True
            fitting = fitting_range(result, self.range)
            if fitting != self.range and self.range_toggle is not None:
                self.range_toggle.set_value(fitting)  # its change reads and draws the fitting range
                return
        self.area.clear()
        with self.area:
            if isinstance(result, str):
                ui.label(result).classes("text-red-700").props('data-testid="chart-error"')
            elif not result.reported:
                ui.label(self.t("monitoring.not_reported")).props('data-testid="chart-not-reported"')
            elif not any(item.values for item in result.series):
                # Young data has no point on a long range's grid yet: an empty grid alone reads as broken.
                ui.label(self.t("charts.empty", shorter=next(iter(RANGES)))).classes(
                    "text-sm text-slate-500"
                ).props('data-testid="chart-empty"').mark("chart-empty")
            else:
                options = chart_options(result, self.t)
                ui.echart(options).classes("w-full h-80").props('data-testid="chart"')


async def read_chart(
    monitoring: MonitoringService, principal: Principal, device_type_id: str, metric: str, span_seconds: int
) -> RangeResult:
    """The last `span_seconds` of `metric`, as much as the chart draws: per node, the busiest nodes at
    the range's end, at most `CHART_POINTS` points a line."""
    start = str(time.time() - span_seconds)
    query = RangeQuery(metric, start=start, by="node", points=CHART_POINTS, series=MAX_SERIES, top="latest")
    return await monitoring.history(principal, device_type_id, query)


def fitting_range(result: RangeResult, current: str) -> str:
    """The shortest of `RANGES` that holds all the data `result` found, when it is shorter than
    `current`; else `current`. A type registered a minute ago would be a sliver at the right edge of
    an hour. The first point found may sit up to a step after the data's true start (the points are
    on the range's grid), so a step is added to the data's age; with no point, nothing tells the age."""
    starts = [item.values[0][0] for item in result.series if item.values]
    if not starts:
        return current
    age = result.request.end - min(starts) + result.request.step_seconds
    fitting = next((name for name, seconds in RANGES.items() if seconds >= age), current)
    return fitting if RANGES[fitting] < RANGES[current] else current


def chart_options(result: RangeResult, t: Translator) -> dict[str, Any]:
    """ECharts options: a line per node (memory: used, in GiB), node names in the legend, in their
    order (the server already kept the busiest)."""
    scale = 1 / _GIB if result.request.metric == "memory" else 1.0
    drawn = sorted(result.series, key=lambda s: s.node)[:MAX_SERIES]
    series = [
        {
            "name": item.node,
            "type": "line",
            # A young series of a few points would be invisible as a bare line.
            "showSymbol": len(item.values) < 30,
            "data": [[at * 1000, round(value * scale, 3)] for at, value in item.values],
        }
        for item in drawn
    ]
    # ECharts' own time templates: {yyyy} the year, {M} the month, {d} the day.
    day = t("charts.axis.day", month="{M}", day="{d}")
    year = t("charts.axis.year", year="{yyyy}", month="{M}", day="{d}")
    return {
        "animation": False,
        "tooltip": {"trigger": "axis"},
        "legend": {"type": "scroll", "top": 0},
        "grid": {"left": 60, "right": 20, "top": 40, "bottom": 30},
        # The axis spans the range asked for, so an empty stretch shows as empty, not as zoomed away.
        "xAxis": {
            "type": "time",
            "min": result.request.start * 1000,
            "max": result.request.end * 1000,
            # ECharts labels a new day with the bare day number and a new month with its English
            # name; both read as a date in the page's language instead.
            "axisLabel": {"formatter": {"year": year, "month": day, "day": day}},
        },
        "yAxis": {"type": "value", "name": t(f"charts.unit.{result.request.metric}")},
        "series": series,
    }
