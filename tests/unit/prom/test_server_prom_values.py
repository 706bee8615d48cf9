"""Decoding Prometheus sample values (JSON strings) and query `data` envelopes."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nufi.prom import PrometheusUnavailable, parse_sample_value
from nufi.prom.results import Sample, _vector_item, parse_query_data

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(finite)
def test_shortest_repr_round_trips(value: float) -> None:
    assert parse_sample_value(repr(value)) == value


@given(finite)
def test_plain_decimal_without_exponent_round_trips(value: float) -> None:
    # Go's strconv.FormatFloat(v, 'f', -1, 64), which Prometheus uses, never writes an exponent.
    text = format(Decimal(value), "f")
    assert parse_sample_value(text) == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [("+Inf", math.inf), ("Inf", math.inf), ("-Inf", -math.inf), ("0", 0.0), ("-0", -0.0), ("1e-7", 1e-7)],
)
def test_special_and_edge_values(text: str, expected: float) -> None:
    assert parse_sample_value(text) == expected


def test_nan_is_nan() -> None:
    assert math.isnan(parse_sample_value("NaN"))


@pytest.mark.parametrize(
    "text",
    ["", " 1", "1 ", "1_000", "infinity", "nan", "inf", "0x10", "1,5", "\u0661\u0662", "--1", "1e", "."],
)
def test_text_python_accepts_but_prometheus_never_sends_is_rejected(text: str) -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        parse_sample_value(text)
    assert repr(text) in caught.value.detail


@pytest.mark.parametrize("value", [1, 1.5, None, ["1"]])
def test_non_string_values_are_rejected(value: object) -> None:
    with pytest.raises(PrometheusUnavailable):
        parse_sample_value(value)


@given(st.text(max_size=40))
def test_any_text_either_parses_like_float_or_raises_the_domain_error(text: str) -> None:
    try:
        parsed = parse_sample_value(text)
    except PrometheusUnavailable:
        return
    assert parsed == float(text) or (math.isnan(parsed) and text == "NaN")


def test_vector_result_decodes_labels_timestamps_and_values() -> None:
    data = {
        "resultType": "vector",
        "result": [
            {"metric": {"__name__": "DCGM_FI_DEV_GPU_TEMP", "gpu": "0"}, "value": [1700000000.5, "61"]},
            {"metric": {"gpu": "1"}, "value": [1700000000.5, "NaN"]},
        ],
    }
    result = parse_query_data(data, ["results truncated"])
    assert result.result_type == "vector"
    first, second = result.samples
    assert first.metric == {"__name__": "DCGM_FI_DEV_GPU_TEMP", "gpu": "0"}
    assert (first.timestamp, first.value) == (1700000000.5, 61.0)
    assert math.isnan(second.value)
    assert result.warnings == ("results truncated",)


def test_matrix_result_decodes_points_in_order() -> None:
    data = {
        "resultType": "matrix",
        "result": [{"metric": {"device": "npu0"}, "values": [[10, "1"], [25, "+Inf"], [40, "2.5"]]}],
    }
    result = parse_query_data(data)
    (series,) = result.series
    assert series.metric == {"device": "npu0"}
    assert series.points == ((10.0, 1.0), (25.0, math.inf), (40.0, 2.5))


def test_scalar_and_string_results() -> None:
    scalar = parse_query_data({"resultType": "scalar", "result": [1700000000, "-Inf"]})
    assert scalar.samples[0].value == -math.inf
    assert scalar.samples[0].metric == {}
    text = parse_query_data({"resultType": "string", "result": [1700000000, "hello"]})
    assert text.text == "hello"


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {"resultType": "table", "result": []},
        {"resultType": "vector", "result": {}},
        {"resultType": "vector", "result": [{"metric": {}, "value": ["1"]}]},
        {"resultType": "vector", "result": [{"metric": {}, "value": ["now", "1"]}]},
        {"resultType": "vector", "result": [{"metric": {"gpu": 0}, "value": [1, "1"]}]},
        {"resultType": "vector", "result": [{"metric": {}, "histogram": [1, {}]}]},
        {"resultType": "matrix", "result": [{"metric": {}, "values": [[1, 1]]}]},
        {"resultType": "scalar", "result": [1, "x"]},
        {"resultType": "string", "result": [1, 2]},
    ],
)
def test_malformed_data_raises_the_domain_error(data: object) -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        parse_query_data(data)
    assert caught.value.dependency == "prometheus"
    assert caught.value.status == 503


# The vector fast path must agree with the careful per-item parser on every input, good or bad: mostly
# well-shaped items with one field off, plus plain junk.
_timestamps = st.sampled_from([1.5, 3, math.nan, math.inf, -math.inf, True, "1", None])
_values = st.sampled_from(["1", "2.5e3", "NaN", "+Inf", "-Inf", "1_0", " 1", "x", 1.0, None])
_label_values = st.one_of(st.text(max_size=3), st.sampled_from([1, None]))
_well_shaped = st.fixed_dictionaries(
    {
        "metric": st.dictionaries(st.sampled_from(["node", "gpu", "pod"]), _label_values, max_size=3),
        "value": st.tuples(_timestamps, _values).map(list),
    }
)
_vector_items_strategy = st.one_of(
    _well_shaped,
    _well_shaped.map(lambda item: {**item, "histogram": {}}),
    _well_shaped.map(lambda item: {"metric": item["metric"], "value": [*item["value"], 1]}),
    st.dictionaries(st.sampled_from(["metric", "value"]), st.none(), max_size=2),
    st.lists(st.integers(), max_size=2),
    st.none(),
)


def _outcome(items: list[object]) -> object:
    try:
        return parse_query_data({"resultType": "vector", "result": items}).samples
    except PrometheusUnavailable as exc:
        return ("error", str(exc))


@settings(max_examples=400)
@given(_vector_items_strategy)
def test_vector_fast_path_agrees_with_the_careful_parser(item: object) -> None:
    fast = _outcome([item])
    try:
        careful: object = (_vector_item(item),)
    except PrometheusUnavailable as exc:
        careful = ("error", str(exc))
    if isinstance(fast, tuple) and fast and isinstance(fast[0], Sample) and isinstance(careful, tuple):
        # NaN never equals itself, so compare what the samples say rather than the objects.
        assert [(s.metric, s.timestamp, repr(s.value)) for s in fast] == [
            (s.metric, s.timestamp, repr(s.value)) for s in careful
        ]
    else:
        assert fast == careful
