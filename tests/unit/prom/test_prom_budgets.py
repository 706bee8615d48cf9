"""The points a subquery makes over the longest range NuFi asks, held to an engine's per-series limit
when an admin's expression is checked, so an accepted expression never fails on the 24 h chart or the
dry run (VictoriaMetrics refuses more than 30,000 points per series by default, with a 422)."""

from __future__ import annotations

import pytest

from nufi.config import Settings
from nufi.devices.checks import enforce_query_bounds
from nufi.devices.spec import MetricsDraft
from nufi.errors import ValidationFailed
from nufi.prom.budgets import subquery_points_problem
from nufi.prom.gateway import AdminQueryLimits
from support.languages import HANGUL

pytestmark = pytest.mark.unit

DAY = 86400.0


class OneSeries:
    async def count_series(self, expression: str, *, timeout_seconds: float) -> int:
        return 1


@pytest.mark.parametrize(
    ("expression", "points"),
    [
        # The expression: VictoriaMetrics answered "too many points ... 90303" over 24 h. The
        # counts include a twentieth of the day for how the engine aligns the range to the steps.
        ("max_over_time(u[1h:1s])", 94_320),
        ("max_over_time(max_over_time(u[1m:1s])[5m:1m])", 90_780),
        ("avg_over_time(u[5m:3s])", 30_340),
    ],
)
def test_a_subquery_too_fine_for_a_day_is_counted(expression: str, points: int) -> None:
    problem = subquery_points_problem(expression, span_seconds=DAY, max_points=30_000)
    assert problem is not None and problem.code == "metrics_backend.subquery_points"
    assert (problem.params["points"], problem.params["limit"]) == (points, 30_000)
    assert HANGUL.search(problem.text("ko"))


@pytest.mark.parametrize(
    "expression", ["max_over_time(u[1h:4s])", "rate(u[1h])", "max_over_time(u[1h:])", "u", "avg(u)"]
)
def test_what_fits_a_day_or_has_no_subquery_step_passes(expression: str) -> None:
    assert subquery_points_problem(expression, span_seconds=DAY, max_points=30_000) is None


async def test_a_save_refuses_it_naming_the_field_and_the_setting() -> None:
    with pytest.raises(ValidationFailed) as caught:
        await enforce_query_bounds(
            MetricsDraft(utilization="u", temperature="max_over_time(t[1h:1s])"),
            OneSeries(),
            AdminQueryLimits(),
        )
    assert (caught.value.status, caught.value.field) == (422, "metrics.temperature")
    assert "NUFI_PROMQL_MAX_POINTS_PER_SERIES" in str(caught.value.extra["bound"])
    assert caught.value.params["problem"]["code"] == "metrics_backend.subquery_points"  # type: ignore[index]


async def test_the_limit_is_a_setting() -> None:
    limits = AdminQueryLimits.from_settings(Settings(promql_max_points_per_series=100_000))
    assert (limits.max_points_per_series, limits.longest_span_seconds) == (100_000, DAY)
    await enforce_query_bounds(MetricsDraft(utilization="max_over_time(u[1h:1s])"), OneSeries(), limits)
    assert AdminQueryLimits.from_settings(Settings()).max_points_per_series == 30_000
