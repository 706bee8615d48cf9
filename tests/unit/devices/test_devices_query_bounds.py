"""What an admin's expressions may cost Prometheus: ranges and steps from the tree, then the series count,
each refusal a 422 naming the field and the bound; with Prometheus unreachable, the count is skipped or
(for a save) the outage raised."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from nufi.devices.checks import enforce_query_bounds
from nufi.devices.spec import MetricsDraft
from nufi.errors import ValidationFailed
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable
from nufi.prom.errors import PrometheusTimedOut
from nufi.prom.gateway import AdminQueryLimits

LIMITS = AdminQueryLimits(
    max_range_seconds=3600, min_subquery_step_seconds=1, max_series=100, series_check_timeout_seconds=2
)


@dataclass
class FakeCounter:
    """Counts from a table; an expression mapped to an exception raises it."""

    answers: dict[str, int | Exception] = field(default_factory=dict)
    asked: list[tuple[str, float]] = field(default_factory=list)

    async def count_series(self, expression: str, *, timeout_seconds: float) -> int:
        self.asked.append((expression, timeout_seconds))
        answer = self.answers.get(expression, 8)
        if isinstance(answer, Exception):
            raise answer
        return answer


def metrics(**expressions: Any) -> MetricsDraft:
    return MetricsDraft.model_validate({"utilization": "lpu_utilization_percent", **expressions})


async def refusal(
    draft: MetricsDraft, counter: FakeCounter, *, raise_unavailable: bool = False
) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        await enforce_query_bounds(draft, counter, LIMITS, raise_unavailable=raise_unavailable)
    assert caught.value.status == 422
    return caught.value


async def test_the_prometheus_killing_subquery_is_refused_before_anything_runs() -> None:
    counter = FakeCounter()
    error = await refusal(metrics(utilization="max_over_time(lpu_utilization_percent[30d:1ms])"), counter)
    assert error.field == "metrics.utilization"
    assert "30d" in error.detail and "NUFI_PROMQL_MAX_RANGE_SECONDS" in error.detail
    assert counter.asked == []


@pytest.mark.parametrize(
    ("memory", "field", "words"),
    [
        ({"used": "max_over_time(u[5m:10ms])", "total": "t"}, "metrics.memory.used", "10ms"),
        ({"used": "u", "total": "avg_over_time(t[1d])"}, "metrics.memory.total", "1d"),
        ({"mode": "used_free", "used": "u", "free": "f[2h:]"}, "metrics.memory.free", "2h"),
    ],
)
async def test_each_range_refusal_names_its_field(memory: dict[str, str], field: str, words: str) -> None:
    error = await refusal(metrics(memory=memory), FakeCounter())
    assert error.field == field and words in error.detail


async def test_too_many_series_are_refused_naming_the_limit() -> None:
    counter = FakeCounter({"lpu_temperature_celsius": 101})
    error = await refusal(metrics(temperature="lpu_temperature_celsius"), counter)
    assert error.field == "metrics.temperature"
    assert "101 series" in error.detail and "100" in error.detail and "NUFI_PROMQL_MAX_SERIES" in error.detail
    assert error.extra["max_series"] == 100
    assert ("lpu_temperature_celsius", 2) in counter.asked


async def test_a_count_that_times_out_is_refused() -> None:
    counter = FakeCounter(
        {
            "power_total": PrometheusTimedOut(
                code="prometheus.timed_out", params={"url": "http://p", "seconds": 2}, error_type="timeout"
            )
        }
    )
    error = await refusal(metrics(power="power_total"), counter)
    assert error.field == "metrics.power"
    assert "longer than 2 s" in error.detail and "NUFI_PROMQL_SERIES_CHECK_TIMEOUT_SECONDS" in error.detail


async def test_expressions_within_the_bounds_pass_and_each_is_counted_with_the_short_timeout() -> None:
    counter = FakeCounter({"lpu_utilization_percent": 100})
    # Near the bounds: a range of 1 h, and under 30,000 points per series over the 24 h NuFi asks.
    draft = metrics(memory={"used": "u", "total": "t"}, temperature="max_over_time(x[1h:4s])")
    await enforce_query_bounds(draft, counter, LIMITS)
    assert sorted(counter.asked) == sorted(
        [("lpu_utilization_percent", 2), ("u", 2), ("t", 2), ("max_over_time(x[1h:4s])", 2)]
    )


async def test_broken_expressions_are_left_to_the_metric_check() -> None:
    rejected = PrometheusQueryRejected(
        code="prometheus.query_rejected", query="lpu_power_watts", error_type="execution", error="no"
    )
    counter = FakeCounter({"lpu_power_watts": rejected})
    draft = metrics(utilization="sum(x", temperature="x[5m]", power="lpu_power_watts")
    await enforce_query_bounds(draft, counter, LIMITS)
    assert [expression for expression, _ in counter.asked] == ["lpu_power_watts"]


async def test_an_unreachable_prometheus_skips_the_count_or_raises_for_a_save() -> None:
    down = PrometheusUnavailable(
        code="prometheus.connect_failed", params={"url": "http://127.0.0.1:1", "reason": "connection refused"}
    )
    counter = FakeCounter({"lpu_utilization_percent": down})
    await enforce_query_bounds(metrics(), counter, LIMITS)
    with pytest.raises(PrometheusUnavailable) as caught:
        await enforce_query_bounds(metrics(), counter, LIMITS, raise_unavailable=True)
    assert caught.value.status == 503 and caught.value.dependency == "prometheus"
