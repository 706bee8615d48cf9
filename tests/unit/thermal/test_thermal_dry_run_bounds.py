"""An own condition's PromQL is held to the admin query bounds before a dry run reads any history,
as saving the policy holds it, and the refusal names the field where the expression sits in the
policy (`custom.expression`), not a device type's `metrics.utilization`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import pytest

from nufi.auth import Principal
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.devices.metric_checks import enforce_query_bounds
from nufi.devices.spec import DeviceType, MetricKey, MetricsDraft
from nufi.errors import ValidationFailed
from nufi.monitoring.ranges.request import points_between
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.prom import QueryResult, Series
from nufi.prom.gateway import AdminQueryLimits
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.dry_run import CUSTOM_EXPRESSION_FIELD, dry_run

T = 1_700_000_000.0
ADMIN = Principal(subject="a", username="a", roles=frozenset({"nufi-admin"}))
LPU = DeviceType.model_validate(
    {
        "id": "lpu",
        "name": "lpu",
        "vendor": "HyperAccel",
        "kind": "custom",
        "resource_key": "example.com/lpu",
        "labels": {"node": "node", "device": "device"},
        "metrics": {"utilization": "lpu_util", "temperature": "lpu_temp"},
    }
)
CUSTOM: Mapping[MetricKey, str] = {"utilization": CUSTOM_EXPRESSION_FIELD}
TOO_COSTLY = [
    "max_over_time(lpu_temp[30d])",
    "max_over_time(lpu_temp[1h:1ms])",
    "max_over_time(max_over_time(lpu_temp[10m])[2h:1m])",
]


class Types:
    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]:
        return [LPU]

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        return LPU


class Prometheus:
    """Answers every range with one node's series at 60, a point per step; records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        return QueryResult("vector")

    async def query_range(
        self, promql: str, start: datetime | float, end: datetime | float, step_seconds: float
    ) -> QueryResult:
        assert isinstance(start, float) and isinstance(end, float)
        self.asked.append(promql)
        points = tuple(
            (start + i * step_seconds, 60.0) for i in range(points_between(start, end, step_seconds))
        )
        return QueryResult("matrix", series=(Series(metric={"node": "n1"}, points=points),))


class Counter:
    def __init__(self, series: int = 1) -> None:
        self.series = series

    async def count_series(self, expression: str, *, timeout_seconds: float) -> int:
        return self.series


def _monitoring(prometheus: Prometheus) -> MonitoringService:
    return MonitoringService(
        Types(),
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        prometheus,
        MonitoringSettings(scrape_interval_seconds=1),
        clock=lambda: T,
        background=False,
    )


def _policy(expression: str) -> ThermalPolicy:
    return ThermalPolicy.model_validate(
        {
            "enabled": True,
            "custom": {"enabled": True, "expression": expression, "trip_at": 90, "resume_at": 80},
        }
    )


async def _bounds(expression: str, field: str) -> None:
    await enforce_query_bounds(
        MetricsDraft(utilization=expression), Counter(), AdminQueryLimits(), fields={"utilization": field}
    )


@pytest.mark.parametrize("expression", TOO_COSTLY)
async def test_a_costly_own_expression_is_refused_before_any_history_is_read(expression: str) -> None:
    prometheus = Prometheus()
    with pytest.raises(ValidationFailed) as caught:
        await dry_run(
            _monitoring(prometheus), ADMIN, LPU, _policy(expression), start=None, end=str(T), bounds=_bounds
        )
    assert caught.value.status == 422 and caught.value.field == "custom.expression"
    assert caught.value.code == "query_bounds.range"
    assert caught.value.detail.startswith("custom.expression:")
    assert prometheus.asked == []


async def test_a_bounded_own_expression_is_replayed() -> None:
    prometheus = Prometheus()
    checked: list[tuple[str, str]] = []

    async def bounds(expression: str, field: str) -> None:
        checked.append((expression, field))
        await _bounds(expression, field)

    replayed = await dry_run(
        _monitoring(prometheus),
        ADMIN,
        LPU,
        _policy("lpu_util"),
        start=str(T - 600),
        end=str(T),
        bounds=bounds,
    )
    assert checked == [("lpu_util", "custom.expression")]
    assert "custom" in replayed.conditions and prometheus.asked


@pytest.mark.parametrize("expression", TOO_COSTLY)
async def test_the_refusal_names_the_field_it_is_given(expression: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        await enforce_query_bounds(
            MetricsDraft(utilization=expression), Counter(), AdminQueryLimits(), fields=CUSTOM
        )
    assert caught.value.field == "custom.expression"
    assert "metrics.utilization" not in caught.value.detail


async def test_too_many_series_names_the_field_it_is_given() -> None:
    with pytest.raises(ValidationFailed) as caught:
        await enforce_query_bounds(
            MetricsDraft(utilization="lpu_util"), Counter(series=10**6), AdminQueryLimits(), fields=CUSTOM
        )
    assert (caught.value.code, caught.value.field) == ("query_bounds.too_many_series", "custom.expression")
