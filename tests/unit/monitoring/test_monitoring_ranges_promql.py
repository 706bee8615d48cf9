"""Time ranges: the PromQL per family, and joining the results."""

from __future__ import annotations

import promql_parser
from hypothesis import given
from hypothesis import strategies as st

from nufi.devices.official.nvidia import PRESET as NVIDIA
from nufi.devices.official.nvidia import DcgmFetcher
from nufi.devices.readings import finite_value
from nufi.devices.spec import LabelsDraft, MetricKey
from nufi.errors import NufiError
from nufi.models.promql import parse_expression
from nufi.monitoring.ranges.queries import output_filter, range_expressions
from nufi.monitoring.ranges.result import assemble_range
from nufi.prom import PrometheusUnavailable, QueryResult, Series
from support.bodies import as_json

from .range_helpers import LPU, parse

MiB = 1024**2


# -- PromQL --------------------------------------------------------------------------------------------


def test_one_expression_per_family() -> None:
    memory = range_expressions(NVIDIA, parse(metric="memory"))
    assert list(memory) == ["memory_used", "memory_free"]
    assert list(range_expressions(LPU, parse(metric="memory"))) == ["memory_used", "memory_total"]
    assert range_expressions(LPU, parse(metric="power")) == {}
    for expression in [*memory.values(), *range_expressions(NVIDIA, parse(metric="power")).values()]:
        parse_expression(expression)


def test_per_device_collapses_to_one_series_per_device() -> None:
    (expression,) = range_expressions(LPU, parse(metric="temperature")).values()
    assert expression == "max by (node, device) (lpu_temperature_celsius)"


def test_per_node_averages_or_sums_finite_values() -> None:
    (temperature,) = range_expressions(LPU, parse(metric="temperature", by="node")).values()
    assert temperature == "avg by (node) (((max by (node, device) (lpu_temperature_celsius)) < +Inf) > -Inf)"
    used = range_expressions(LPU, parse(metric="memory", by="node"))["memory_used"]
    assert used.startswith("sum by (node) (")
    (power,) = range_expressions(NVIDIA, parse(metric="power", by="node")).values()
    assert power.startswith("sum by (hostname) (")


def test_filters_match_at_the_output_by_equality() -> None:
    (expression,) = range_expressions(LPU, parse(node="n1", device="lpu.0")).values()
    assert expression == (
        "(max by (node, device) (lpu_utilization_percent)) and on (node, device) "
        'label_replace(label_replace(vector(1), "node", "n1", "", ""), "device", "lpu.0", "", "")'
    )


LABEL_VALUES = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=30) | st.sampled_from(
    ['a"b', "a\\b", "$1", "${node}", "$$", ".*", "a|b", "[x]", "\\.", "`", "'", "\n", "\x00", "é"]
)


@given(node=LABEL_VALUES, device=LABEL_VALUES)
def test_any_label_value_reaches_prometheus_intact(node: str, device: str) -> None:
    found = output_filter(LabelsDraft(node="node", device="device"), node_value=node, device_value=device)
    assert found is not None
    names, vector = found
    assert names == ["node", "device"]
    outer = promql_parser.parse(vector)
    assert isinstance(outer, promql_parser.Call)
    inner = outer.args[0]
    assert isinstance(inner, promql_parser.Call)
    # label_replace's template turns `$$` into `$`; every other character is taken as written.
    assert (inner.args[1].val, inner.args[2].val) == ("node", node.replace("$", "$$"))
    assert (outer.args[1].val, outer.args[2].val) == ("device", device.replace("$", "$$"))


def test_no_filter_no_vector() -> None:
    assert (
        output_filter(LabelsDraft(node="node", device="device"), node_value=None, device_value=None) is None
    )


# -- joining results -----------------------------------------------------------------------------------


def matrix(*rows: tuple[dict[str, str], list[tuple[float, float]]]) -> QueryResult:
    return QueryResult("matrix", series=tuple(Series(labels, tuple(points)) for labels, points in rows))


def gpu(node: str, gpu_index: str) -> dict[str, str]:
    return {"hostname": node, "gpu": gpu_index}


def test_used_and_free_in_mib_become_used_and_total_in_bytes() -> None:
    request = parse(metric="memory")
    expressions = range_expressions(NVIDIA, request)
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "memory_used": matrix((gpu("g1", "0"), [(1.0, 100.0), (2.0, 200.0)])),
        "memory_free": matrix((gpu("g1", "0"), [(1.0, 900.0), (3.0, 700.0)])),
    }
    result = as_json(assemble_range(NVIDIA, request, outcomes, expressions, usable=DcgmFetcher().usable))
    assert result["unit"] == "bytes" and result["errors"] == []
    (series,) = result["series"]
    assert series["node"] == "g1" and series["device"] == "0"
    assert series["used"] == [[1.0, 100 * MiB], [2.0, 200 * MiB]]
    assert series["total"] == [[1.0, 1000 * MiB]]  # only where both halves have a point


def test_vendor_sentinels_and_non_finite_values_are_dropped() -> None:
    request = parse(metric="temperature")
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "temperature": matrix(
            (gpu("g1", "0"), [(1.0, 70.0), (2.0, 9.2e18), (3.0, float("nan")), (4.0, 71.0)])
        )
    }
    expressions = range_expressions(NVIDIA, request)
    dcgm = as_json(assemble_range(NVIDIA, request, outcomes, expressions, usable=DcgmFetcher().usable))
    assert dcgm["series"][0]["values"] == [[1.0, 70.0], [4.0, 71.0]]
    generic = as_json(assemble_range(NVIDIA, request, outcomes, expressions, usable=finite_value))
    assert generic["series"][0]["values"] == [[1.0, 70.0], [2.0, 9.2e18], [4.0, 71.0]]


def test_per_node_series_have_no_device() -> None:
    request = parse(metric="utilization", by="node")
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": matrix(
            ({"node": "b"}, [(1.0, 5.0)]), ({"node": "a"}, [(1.0, 7.0)]), ({}, [(1.0, 1.0)])
        )
    }
    result = as_json(
        assemble_range(LPU, request, outcomes, range_expressions(LPU, request), usable=finite_value)
    )
    assert [(s["node"], s["device"], s["values"]) for s in result["series"]] == [
        ("a", None, [[1.0, 7.0]]),
        ("b", None, [[1.0, 5.0]]),
    ]
    (error,) = result["errors"]
    assert error["metric"] == "utilization" and "1 series lack the label 'node'" in error["message"]


def test_a_failed_family_is_an_error_and_the_rest_still_comes() -> None:
    request = parse(metric="memory")
    expressions = range_expressions(LPU, request)
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "memory_used": matrix(({"node": "a", "device": "x"}, [(1.0, 5.0)])),
        "memory_total": PrometheusUnavailable(
            code="prometheus.timed_out", params={"url": "http://p", "seconds": 10}
        ),
    }
    result = as_json(assemble_range(LPU, request, outcomes, expressions, usable=finite_value))
    assert result["series"] == [{"node": "a", "device": "x", "used": [[1.0, 5]], "total": []}]
    assert [(e["metric"], e["query"]) for e in result["errors"]] == [
        ("memory_total", expressions["memory_total"])
    ]


def test_an_unreported_metric_says_so() -> None:
    request = parse(metric="power")
    result = as_json(assemble_range(LPU, request, {}, {}, usable=finite_value))
    assert result["reported"] is False and result["series"] == [] and result["unit"] == "watts"
    assert result["start"] == "2023-11-14T21:13:20.000Z" and result["step_seconds"] == 15.0
