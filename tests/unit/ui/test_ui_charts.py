"""Chart options built from a time range: a line per node, memory in GiB, the legend capped; and the
range the chart asks for, no more than it draws."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest

from nufi.auth import Principal
from nufi.messages.catalog import Language
from nufi.monitoring.ranges.request import RangeQuery, RangeRequest
from nufi.monitoring.ranges.result import RangeResult, RangeSeries
from nufi.monitoring.service import MonitoringService
from nufi.ui.i18n import Translator
from nufi.ui.parts.charts import CHART_POINTS, MAX_SERIES, chart_options, fitting_range, read_chart

T = 1_700_000_000.0


def result(metric: str, nodes: int) -> RangeResult:
    series = tuple(
        RangeSeries(f"node-{i:03d}", None, ((T, 2.0 * 1024**3), (T + 15, 3.0 * 1024**3)))
        for i in range(nodes)
    )
    return RangeResult("lpu", RangeRequest(metric, T - 3600, T, 15.0, by="node"), True, series)  # type: ignore[arg-type]


def test_a_line_per_node_with_its_name_in_the_legend_and_milliseconds_on_the_axis() -> None:
    options = chart_options(result("temperature", 3), Translator("en"))
    assert [s["name"] for s in options["series"]] == ["node-000", "node-001", "node-002"]
    assert options["series"][0]["data"][0] == [T * 1000, 2.0 * 1024**3]
    assert options["yAxis"]["name"] == "°C"
    assert (options["xAxis"]["min"], options["xAxis"]["max"]) == ((T - 3600) * 1000, T * 1000)


def test_memory_is_drawn_in_gib() -> None:
    options = chart_options(result("memory", 1), Translator("ko"))
    assert options["series"][0]["data"] == [[T * 1000, 2.0], [(T + 15) * 1000, 3.0]]
    assert options["yAxis"]["name"] == "GiB (사용)"


@pytest.mark.parametrize(
    ("language", "day", "year"),
    [("ko", "{M}월 {d}일", "{yyyy}년 {M}월 {d}일"), ("en", "{M}/{d}", "{yyyy}/{M}/{d}")],
)
def test_a_new_day_on_the_axis_reads_as_a_date_in_the_page_language(
    language: Language, day: str, year: str
) -> None:
    # ECharts' defaults would label it "6" (the bare day) and a new month "Dec" on every page.
    formatter = chart_options(result("power", 1), Translator(language))["xAxis"]["axisLabel"]["formatter"]
    assert formatter == {"year": year, "month": day, "day": day}


def test_a_thousand_nodes_draw_at_most_the_cap() -> None:
    assert len(chart_options(result("power", 1000), Translator("en"))["series"]) == MAX_SERIES


class Monitoring:
    """Records what the chart asks."""

    def __init__(self) -> None:
        self.asked: dict[str, Any] = {}

    async def history(self, principal: Principal, device_type_id: str, query: RangeQuery) -> RangeResult:
        self.asked = {"device_type_id": device_type_id, **vars(query)}
        return result(query.metric, 1)


async def test_the_chart_asks_only_for_what_it_draws() -> None:
    monitoring = Monitoring()
    me = Principal(subject="u", username="u", roles=frozenset())
    await read_chart(cast(MonitoringService, monitoring), me, "lpu", "power", 86400)
    asked = monitoring.asked
    assert (asked["by"], asked["series"], asked["points"], asked["top"]) == (
        "node",
        MAX_SERIES,
        CHART_POINTS,
        "latest",
    )
    assert abs(time.time() - 86400 - float(asked["start"])) < 60


def aged(age_seconds: float, span: float = 3600.0, step: float = 30.0) -> RangeResult:
    """A range of `span` ending at T whose one node's data began `age_seconds` before T."""
    first = max(T - age_seconds, T - span)  # older data begins where the range does
    values = ((first, 1.0), (first + step, 1.0), (T, 1.0))
    request = RangeRequest("utilization", T - span, T, step, by="node")
    return RangeResult("lpu", request, True, (RangeSeries("node-1", None, values),))


@pytest.mark.parametrize(
    ("age", "fitting"),
    [(60, "15m"), (14 * 60, "15m"), (20 * 60, "1h"), (3600, "1h"), (5 * 3600, "1h")],
)
def test_young_data_opens_on_the_shortest_range_that_holds_it(age: float, fitting: str) -> None:
    # A type registered a minute ago is a sliver at the edge of an hour; older data keeps the hour.
    assert fitting_range(aged(age), "1h") == fitting


def test_the_fitted_range_counts_a_step_before_the_first_point_and_never_widens() -> None:
    # The first point sits on the range's grid, up to a step after the data began.
    assert fitting_range(aged(15 * 60 - 10), "1h") == "1h"
    assert fitting_range(aged(60, span=900, step=7.5), "15m") == "15m"
    assert fitting_range(aged(3 * 3600, span=86400, step=720), "24h") == "6h"


def test_without_a_point_the_range_stays() -> None:
    request = RangeRequest("utilization", T - 3600, T, 30.0, by="node")
    empty = RangeResult("lpu", request, True, (RangeSeries("node-1", None, ()),))
    assert fitting_range(empty, "1h") == "1h"
