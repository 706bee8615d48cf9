"""Ranges through the service: readers share one query per family and window, whoever they are and
however many series they keep; a chart's budget of points reaches Prometheus as a coarser step."""

from __future__ import annotations

import dataclasses
from datetime import datetime

import pytest

from nufi.auth import Principal
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.devices.spec import DeviceType
from nufi.errors import ValidationFailed
from nufi.monitoring.ranges.request import RangeQuery
from nufi.monitoring.ranges.result import RangeSeries
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.prom import QueryResult, Series

from .range_helpers import LPU, parse

# A multiple of the 15 s step of an hour's range at a 15 s scrape interval.
NOW = 1_700_000_100.0
ALICE = Principal(subject="a", username="alice", roles=frozenset())
ADMIN = Principal(subject="r", username="root", roles=frozenset({"admin"}))


class Types:
    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]:
        return [LPU]

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        return LPU


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


class Prometheus:
    """Answers every range with one series per node, and remembers what it was asked."""

    def __init__(self) -> None:
        self.ranges: list[tuple[str, float, float, float]] = []

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        return QueryResult("vector")

    async def query_range(
        self, promql: str, start: datetime | float, end: datetime | float, step_seconds: float
    ) -> QueryResult:
        assert isinstance(start, float) and isinstance(end, float)
        self.ranges.append((promql, start, end, step_seconds))
        # n1: 50 then 60; n2: 90 then 10 (memory: in use, and a size the same for both).
        total = "total" in promql
        n1 = ((start, 50.0), (end, 60.0)) if not total else ((start, 100.0), (end, 100.0))
        n2 = ((start, 90.0), (end, 10.0)) if not total else ((start, 100.0), (end, 100.0))
        return QueryResult(
            "matrix",
            series=(
                Series(metric={"node": "n1", "device": "lpu0", "pod": "secret"}, points=n1),
                Series(metric={"node": "n2", "device": "lpu0"}, points=n2),
            ),
        )


def service(prometheus: Prometheus, clock: Clock) -> MonitoringService:
    return MonitoringService(
        Types(),
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        prometheus,
        MonitoringSettings(scrape_interval_seconds=15),
        clock=clock,
        background=False,
    )


async def test_readers_within_one_step_share_one_query_per_family_and_the_next_step_asks_again() -> None:
    prometheus, clock = Prometheus(), Clock()
    monitoring = service(prometheus, clock)
    first = await monitoring.history(ALICE, "lpu", RangeQuery(metric="memory"))
    clock.now = NOW + 14
    again = await monitoring.history(ADMIN, "lpu", RangeQuery(metric="memory"))
    assert len(prometheus.ranges) == 2  # used and total, once each
    assert again == first
    assert (first.request.start, first.request.end) == (NOW - 3600, NOW)
    clock.now = NOW + 15
    later = await monitoring.history(ALICE, "lpu", RangeQuery(metric="memory"))
    assert len(prometheus.ranges) == 4
    assert later.request.end == NOW + 15


async def test_an_explicit_range_is_aligned_too_so_identical_asks_share() -> None:
    prometheus, clock = Prometheus(), Clock()
    monitoring = service(prometheus, clock)
    for shift in (0.0, 3.0, 14.9):
        await monitoring.history(
            ALICE,
            "lpu",
            RangeQuery("utilization", start=str(NOW - 7200 + shift), end=str(NOW - 3600 + shift)),
        )
    assert len(prometheus.ranges) == 1
    assert prometheus.ranges[0][1:] == (NOW - 7200, NOW - 3600, 15.0)


async def test_filters_and_groupings_are_asked_apart() -> None:
    prometheus, clock = Prometheus(), Clock()
    monitoring = service(prometheus, clock)
    await monitoring.history(ALICE, "lpu", RangeQuery(metric="utilization"))
    await monitoring.history(ALICE, "lpu", RangeQuery(metric="utilization", node="n1"))
    await monitoring.history(ALICE, "lpu", RangeQuery(metric="utilization", by="node"))
    await monitoring.history(ALICE, "lpu", RangeQuery(metric="utilization", step="30"))
    assert len({asked[0] for asked in prometheus.ranges}) == 3
    assert len(prometheus.ranges) == 4


def test_range_series_carry_no_pod_or_namespace_to_hide() -> None:
    # One answer may serve every viewer only because nothing in it is anyone's to hide.
    assert {f.name for f in dataclasses.fields(RangeSeries)} == {"node", "device", "values", "total"}


def test_a_points_budget_coarsens_the_default_step_and_an_explicit_step_wins() -> None:
    day = {"start": str(1_700_000_000 - 86400), "end": "1700000000"}
    assert parse(**day).step_seconds == 174.0
    assert parse(**day, points=300).step_seconds == 289.0
    assert parse(**day, points=300, step="60").step_seconds == 60.0


@pytest.mark.parametrize(
    ("asked", "field", "code"),
    [
        ({"points": 1}, "points", "monitoring.count_out_of_range"),
        ({"points": 501}, "points", "monitoring.count_out_of_range"),
        ({"series": 0}, "series", "monitoring.count_out_of_range"),
        ({"top": "first"}, "top", "monitoring.top_unknown"),
    ],
)
def test_budgets_out_of_bounds_are_refused_naming_the_parameter(
    asked: dict[str, object], field: str, code: str
) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse(**asked)
    assert (refused.value.field, refused.value.code) == (field, code)


async def test_a_series_limit_keeps_the_highest_after_the_one_shared_query() -> None:
    prometheus, clock = Prometheus(), Clock()
    monitoring = service(prometheus, clock)
    every = await monitoring.history(ALICE, "lpu", RangeQuery(metric="utilization", by="node"))
    latest = await monitoring.history(ALICE, "lpu", RangeQuery(metric="utilization", by="node", series=1))
    peak = await monitoring.history(
        ALICE, "lpu", RangeQuery(metric="utilization", by="node", series=1, top="peak")
    )
    assert len(prometheus.ranges) == 1
    assert [s.node for s in every.series] == ["n1", "n2"]
    # n1 ends at 60 and peaked at 60, n2 ends at 10 but peaked at 90.
    assert [s.node for s in latest.series] == ["n1"]
    assert [s.node for s in peak.series] == ["n2"]
    assert peak.series[0] == every.series[1]


async def test_memory_is_ranked_by_the_memory_in_use() -> None:
    prometheus, clock = Prometheus(), Clock()
    monitoring = service(prometheus, clock)
    (kept,) = (
        await monitoring.history(ALICE, "lpu", RangeQuery(metric="memory", by="node", series=1))
    ).series
    assert kept.node == "n1" and kept.total is not None
