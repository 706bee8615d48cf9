"""What the dry run's history asks of Prometheus over a long range at a fine step: only the highest
reading over each step, in parts each within Prometheus' points per series, joined into one series."""

from __future__ import annotations

import math
from datetime import datetime

from nufi.auth import Principal
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.devices.spec import DeviceType
from nufi.monitoring.ranges.request import PROMETHEUS_MAX_POINTS, points_between
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.prom import QueryResult, Series

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


class Types:
    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]:
        return [LPU]

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        return LPU


class Prometheus:
    """Answers every range with one node's series, a point per step; records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, float, float, float]] = []

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        return QueryResult("vector")

    async def query_range(
        self, promql: str, start: datetime | float, end: datetime | float, step_seconds: float
    ) -> QueryResult:
        assert isinstance(start, float) and isinstance(end, float)
        self.asked.append((promql, start, end, step_seconds))
        count = points_between(start, end, step_seconds)
        points = tuple((start + i * step_seconds, 60.0) for i in range(count))
        return QueryResult("matrix", series=(Series(metric={"node": "n1"}, points=points),))


async def test_two_days_at_a_second_are_asked_in_parts_and_joined() -> None:
    prometheus = Prometheus()
    monitoring = MonitoringService(
        Types(),
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        prometheus,
        MonitoringSettings(scrape_interval_seconds=1),
        clock=lambda: T,
        background=False,
    )
    span = 2 * 86400.0
    result = await monitoring.ranges.peak_history(
        ADMIN, "lpu", start=str(T - span), end=str(T), step_seconds=1.0, by="node"
    )
    assert len(prometheus.asked) == math.ceil((span + 1) / (PROMETHEUS_MAX_POINTS - 1))
    for promql, start, end, step in prometheus.asked:
        assert promql.startswith("max_over_time((max by (node) (") and promql.endswith("[1000ms:1000ms])")
        assert step == 1.0 and points_between(start, end, step) < PROMETHEUS_MAX_POINTS
    ((node, device, values),) = [(s.node, s.device, s.values) for s in result.series]
    assert (node, device) == ("n1", None) and result.request.step_seconds == 1.0
    assert [t for t, _ in values] == [T - span + i for i in range(int(span) + 1)]
