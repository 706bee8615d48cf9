"""Chart options built from a time range: a line per node, memory in GiB, the legend capped."""

from __future__ import annotations

from nufi.monitoring import RangeRequest, RangeResult, RangeSeries
from nufi.ui.i18n import Translator
from nufi.ui.parts.charts import MAX_SERIES, chart_options

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


def test_a_thousand_nodes_draw_at_most_the_cap() -> None:
    assert len(chart_options(result("power", 1000), Translator("en"))["series"]) == MAX_SERIES
