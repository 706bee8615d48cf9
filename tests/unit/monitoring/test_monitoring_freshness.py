"""The last-value/last-seen query wrapper and the probe that joins its two halves."""

from __future__ import annotations

from datetime import datetime

import promql_parser
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.monitoring.freshness import (
    SEEN_LABEL,
    FreshnessProbe,
    duration,
    join_parts,
    last_seen_query,
    metrics_of,
)
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult, Sample
from nufi.prom.promql import parse_expression

T = 1_700_000_000.0


def value(number: float, **labels: str) -> Sample:
    return Sample(metric=labels, timestamp=T, value=number)


def seen(at: float, **labels: str) -> Sample:
    return Sample(metric={**labels, SEEN_LABEL: "last"}, timestamp=T, value=at)


def test_the_wrapped_query_parses_and_asks_last_seen_only_of_silent_series() -> None:
    expression = 'max by (node, device) (lpu_temperature_celsius{job="a"}) or on() vector(0)'
    wrapped = last_seen_query(expression, window_seconds=300, step_seconds=15)
    tree = parse_expression(wrapped)
    assert isinstance(tree, promql_parser.BinaryExpr)
    assert wrapped.count(expression) == 4
    assert "[300s:15s]" in wrapped
    assert f'"{SEEN_LABEL}", "last"' in wrapped
    assert f"unless ({expression})" in wrapped
    assert f"({expression}) or last_over_time(({expression})[300s:15s])" in wrapped


def test_series_are_reduced_to_the_labels_kept() -> None:
    wrapped = last_seen_query("x", window_seconds=20, step_seconds=1, keep_labels=["node", "device", "node"])
    assert "max by (node, device) (x)" in wrapped and "(x)" not in wrapped.replace(
        "max by (node, device) (x)", ""
    )
    parse_expression(wrapped)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(15, "15s"), (0.5, "500ms"), (1.0004, "1s"), (1.5, "1500ms"), (0.0001, "1ms"), (300, "300s")],
)
def test_durations_are_whole_milliseconds(seconds: float, text: str) -> None:
    assert duration(seconds) == text


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf")])
def test_a_duration_must_be_positive_and_finite(seconds: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        duration(seconds)


@given(st.floats(min_value=0.001, max_value=3600))  # the range MonitoringSettings accepts
def test_any_positive_interval_gives_a_parsable_query(seconds: float) -> None:
    parse_expression(last_seen_query("up", window_seconds=seconds * 20, step_seconds=seconds))


def test_silent_series_take_their_last_seen_time_and_fresh_ones_pass_through() -> None:
    fresh = value(61.5, node="a", device="lpu0")
    result = QueryResult(
        "vector",
        samples=(
            fresh,
            value(40.0, __name__="lpu_temperature_celsius", node="a", device="lpu1"),
            seen(T - 30.0, node="a", device="lpu1"),
        ),
    )
    joined, evaluated_at = join_parts(result)
    assert evaluated_at == T
    assert [(s.metric.get("device"), s.value, s.timestamp) for s in joined.samples] == [
        ("lpu0", 61.5, T),
        ("lpu1", 40.0, T - 30.0),
    ]
    assert joined.samples[0] is fresh
    assert all(SEEN_LABEL not in s.metric for s in joined.samples)


def test_a_non_finite_last_seen_is_ignored() -> None:
    result = QueryResult("vector", samples=(value(1.0, node="a"), seen(float("nan"), node="a")))
    assert [s.timestamp for s in join_parts(result)[0].samples] == [T]


class Scripted:
    """Answers each query with the next outcome and keeps what was asked."""

    def __init__(self, *outcomes: QueryResult | Exception) -> None:
        self.outcomes = list(outcomes)
        self.asked: list[tuple[str, datetime | float | None]] = []

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        self.asked.append((promql, time))
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


async def test_the_probe_wraps_every_query_and_records_the_evaluation_time() -> None:
    prometheus = Scripted(QueryResult("vector", samples=(value(3.0, node="a", device="b"),)))
    probe = FreshnessProbe(prometheus, window_seconds=20, step_seconds=1)
    result = await probe.query("lpu_utilization_percent", 123.0)
    assert prometheus.asked == [
        (last_seen_query("lpu_utilization_percent", window_seconds=20, step_seconds=1), 123.0)
    ]
    assert [s.value for s in result.samples] == [3.0]
    assert probe.answered == 1 and probe.failures == [] and probe.evaluated_at == T
    probe.raise_if_nothing_answered()


async def test_an_unreachable_prometheus_is_recorded_and_answered_empty() -> None:
    down = PrometheusUnavailable("cannot connect to Prometheus at http://127.0.0.1:1")
    probe = FreshnessProbe(Scripted(down, down), window_seconds=20, step_seconds=1)
    assert await probe.query("a") == QueryResult("vector")
    assert await probe.query("b") == QueryResult("vector")
    assert [(f.expression, f.error) for f in probe.failures] == [("a", down), ("b", down)]
    with pytest.raises(PrometheusUnavailable) as raised:
        probe.raise_if_nothing_answered()
    assert raised.value is down


async def test_one_answered_query_is_enough_to_carry_on() -> None:
    down = PrometheusUnavailable("timed out")
    probe = FreshnessProbe(Scripted(QueryResult("vector"), down), window_seconds=20, step_seconds=1)
    await probe.query("a")
    await probe.query("b")
    probe.raise_if_nothing_answered()
    assert [f.expression for f in probe.failures] == ["b"]


async def test_a_rejection_names_the_admins_expression_not_the_wrapper() -> None:
    wrapped = last_seen_query("bad(", window_seconds=20, step_seconds=1)
    rejected = PrometheusQueryRejected("...", query=wrapped, error_type="bad_data", error="parse error")
    probe = FreshnessProbe(Scripted(rejected), window_seconds=20, step_seconds=1)
    with pytest.raises(PrometheusQueryRejected) as raised:
        await probe.query("bad(")
    assert raised.value.query == "bad("
    assert "`bad(`" in raised.value.detail and "parse error" in raised.value.detail
    assert "last_over_time" not in raised.value.detail


def test_metrics_of_an_expression() -> None:
    queries = {"utilization": "u", "memory_used": "m", "memory_total": "m"}
    assert metrics_of("m", queries) == ["memory_used", "memory_total"]  # type: ignore[arg-type]
    assert metrics_of("x", queries) == []  # type: ignore[arg-type]
