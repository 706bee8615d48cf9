"""The service's rules for partial failure, with a scripted Prometheus and no cluster configured."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from nufi.auth import Principal
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.devices.spec import DeviceType
from nufi.errors import NotFound, Unauthorized
from nufi.monitoring.ranges.request import RangeQuery
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshots.snapshot import Snapshot
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult, Sample
from support.bodies import as_json

T = 1_700_000_000.0
ME = Principal(subject="u", username="u", roles=frozenset())


def lpu(type_id: str, prefix: str, fetcher: str = "generic") -> DeviceType:
    return DeviceType.model_validate(
        {
            "id": type_id,
            "name": type_id,
            "vendor": "HyperAccel",
            "kind": "custom",
            "resource_key": f"example.com/{type_id}",
            "labels": {"node": "node", "device": "device"},
            "metrics": {"utilization": f"{prefix}_util", "temperature": f"{prefix}_temp"},
            "fetcher": fetcher,
        }
    )


class Types:
    def __init__(self, *types: DeviceType) -> None:
        self.types = {t.id: t for t in types}

    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]:
        return list(self.types.values())

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        if device_type_id not in self.types:
            raise NotFound(code="device_type.not_found", params={"device_type": device_type_id})
        return self.types[device_type_id]


class Prometheus:
    """Answers by the metric name found in the query: a value, or an error. Asked when the newest
    sample was taken (`max(timestamp(...))`), it answers `lag` seconds before the time asked."""

    def __init__(self, outcomes: dict[str, float | Exception], *, lag: float = 0.0) -> None:
        self.outcomes = outcomes
        self.lag = lag
        self.instant: list[str] = []

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        self.instant.append(promql)
        for name, outcome in self.outcomes.items():
            if name in promql:
                if isinstance(outcome, Exception):
                    raise outcome
                if promql.startswith("max(timestamp("):
                    at = time if isinstance(time, float) else T
                    return QueryResult(
                        "vector", samples=(Sample(metric={}, timestamp=at, value=at - self.lag),)
                    )
                sample = Sample(metric={"node": "n1", "device": "d0"}, timestamp=T, value=outcome)
                return QueryResult("vector", samples=(sample,))
        return QueryResult("vector")

    async def query_range(
        self, promql: str, start: datetime | float, end: datetime | float, step_seconds: float
    ) -> QueryResult:
        raise PrometheusUnavailable(
            code="prometheus.connect_failed",
            params={"url": "http://127.0.0.1:1", "reason": "connection refused"},
        )


def over(types: Types, prometheus: Prometheus) -> MonitoringService:
    """A service over a catalog the test changes as it goes, evaluating only when read."""
    return MonitoringService(
        types,
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        prometheus,
        clock=lambda: T,
        background=False,
    )


def service(prometheus: Prometheus, *types: DeviceType) -> MonitoringService:
    return MonitoringService(
        Types(*types),
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        prometheus,
        MonitoringSettings(scrape_interval_seconds=1),
        clock=lambda: T,
        background=False,
    )


DOWN = PrometheusUnavailable(code="prometheus.timed_out", params={"url": "http://p", "seconds": 10})


async def test_a_query_prometheus_cannot_answer_is_an_error_of_its_metric() -> None:
    snapshot = await service(Prometheus({"a_util": 42.0, "a_temp": DOWN}), lpu("a", "a")).snapshot(ME, "a")
    body = as_json(snapshot)
    device = body["nodes"][0]["devices"][0]
    assert device["utilization_percent"] == 42.0 and device["temperature_celsius"] is None
    by_source = {(e["source"], e["metric"]): e for e in body["errors"]}
    assert by_source["prometheus", "temperature"]["query"] == "a_temp"
    assert "did not answer within 10 s" in by_source["prometheus", "temperature"]["message"]
    assert "Kubernetes is not configured" in by_source["kubernetes", None]["message"]
    assert body["time"] == "2023-11-14T22:13:20.000Z"


async def test_nothing_answered_is_prometheus_unavailable() -> None:
    with pytest.raises(PrometheusUnavailable):
        await service(Prometheus({"a_": DOWN}), lpu("a", "a")).snapshot(ME, "a")


async def test_a_rejected_expression_is_an_error_naming_the_admins_expression() -> None:
    rejected = PrometheusQueryRejected(
        code="prometheus.query_rejected", query="x", error_type="execution", error="many-to-many matching"
    )
    body = as_json(
        await service(Prometheus({"a_util": 5.0, "a_temp": rejected}), lpu("a", "a")).snapshot(ME, "a")
    )
    (error,) = [e for e in body["errors"] if e["source"] == "prometheus"]
    assert (error["metric"], error["query"]) == ("temperature", "a_temp")
    assert "'a_temp'" in error["message"] and "many-to-many" in error["message"]


async def test_the_overview_keeps_the_types_that_answered() -> None:
    prometheus = Prometheus({"a_util": 10.0, "a_temp": 50.0, "b_": DOWN})
    types = (lpu("a", "a"), lpu("b", "b"), lpu("c", "c", fetcher="not-installed"))
    rows = {
        row["device_type"]: row for row in as_json(await service(prometheus, *types).overview(ME))["items"]
    }
    assert rows["a"]["summary"]["avg_utilization_percent"] == 10.0
    assert rows["a"]["summary"]["max_temperature_celsius"] == 50.0
    assert rows["b"]["summary"] is None and "did not answer" in rows["b"]["errors"][0]["message"]
    assert rows["c"]["summary"] is None and "not-installed" in rows["c"]["errors"][0]["message"]
    assert rows["c"]["errors"][0]["source"] == "catalog"
    # One query per metric of each type that has a fetcher, and one for how old its newest sample is.
    assert len(prometheus.instant) == 6


async def test_an_overview_with_prometheus_down_for_every_type_is_unavailable() -> None:
    with pytest.raises(PrometheusUnavailable):
        await service(Prometheus({"_": DOWN}), lpu("a", "a"), lpu("b", "b")).overview(ME)


async def test_ranges_with_every_family_unreachable_are_unavailable() -> None:
    with pytest.raises(PrometheusUnavailable):
        await service(Prometheus({}), lpu("a", "a")).history(ME, "a", RangeQuery(metric="utilization"))


async def test_signed_out_callers_are_refused_before_anything_is_asked() -> None:
    prometheus = Prometheus({})
    monitoring = service(prometheus, lpu("a", "a"))
    for call in (
        monitoring.snapshot(None, "a"),
        monitoring.overview(None),
        monitoring.history(None, "a", RangeQuery("power")),
    ):
        with pytest.raises(Unauthorized):
            await call
    assert prometheus.instant == []


async def test_an_unknown_type_is_not_found() -> None:
    with pytest.raises(NotFound):
        await service(Prometheus({}), lpu("a", "a")).snapshot(ME, "zzz")


async def test_an_edited_type_is_evaluated_with_its_new_expressions_on_the_very_next_read() -> None:
    prometheus = Prometheus({"a_util": 42.0, "b_util": 7.0})
    types = Types(lpu("a", "a"))
    monitoring = over(types, prometheus)
    first = as_json(await monitoring.snapshot(ME, "a"))
    assert first["nodes"][0]["devices"][0]["utilization_percent"] == 42.0
    types.types["a"] = lpu("a", "b")  # the same id, new expressions; no time has passed
    edited = as_json(await monitoring.snapshot(ME, "a"))
    assert edited["nodes"][0]["devices"][0]["utilization_percent"] == 7.0
    # Unchanged, the type is served from its refresher without asking Prometheus again.
    asked = len(prometheus.instant)
    await monitoring.snapshot(ME, "a")
    assert len(prometheus.instant) == asked


class CountedTypes(Types):
    def __init__(self, *types: DeviceType) -> None:
        super().__init__(*types)
        self.lookups = 0
        self.gate = asyncio.Event()

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        self.lookups += 1
        await self.gate.wait()
        return await super().get(principal, device_type_id)


async def test_concurrent_readers_of_a_type_share_one_catalog_lookup_and_one_evaluation() -> None:
    prometheus = Prometheus({"a_util": 42.0, "a_temp": 50.0})
    types = CountedTypes(lpu("a", "a"))
    monitoring = over(types, prometheus)
    readers = [asyncio.ensure_future(monitoring.snapshot(ME, "a")) for _ in range(20)]
    await asyncio.sleep(0)
    types.gate.set()
    snapshots = await asyncio.gather(*readers)
    assert types.lookups == 1
    # One evaluation: one query per quantity, and one for how old the newest sample is.
    assert len(prometheus.instant) == 3
    assert {s.time for s in snapshots} == {T}


async def test_the_stream_follows_an_edit_and_ends_when_the_type_is_deleted() -> None:
    prometheus = Prometheus({"a_util": 42.0, "b_util": 7.0})
    types = Types(lpu("a", "a"))
    monitoring = over(types, prometheus)
    stream = monitoring.stream(ME, "a", heartbeat_seconds=0.05)
    first = await anext(stream)
    assert isinstance(first, Snapshot) and first.nodes[0].devices[0].utilization_percent == 42.0
    assert await anext(stream) is None  # nothing new: a heartbeat
    assert [s.open_streams for s in monitoring.stats()] == [1]
    types.types["a"] = lpu("a", "b")
    edited = await anext(stream)
    while edited is None:
        edited = await anext(stream)
    assert isinstance(edited, Snapshot) and edited.nodes[0].devices[0].utilization_percent == 7.0
    del types.types["a"]
    with pytest.raises(NotFound):
        while True:
            await anext(stream)
    assert monitoring.stats() == []  # the deleted type's refresher is gone


async def test_the_overview_lets_go_of_types_no_longer_listed() -> None:
    prometheus = Prometheus({"a_util": 1.0, "b_util": 2.0})
    types = Types(lpu("a", "a"), lpu("b", "b"))
    monitoring = over(types, prometheus)
    await monitoring.overview(ME)
    assert [s.device_type for s in monitoring.stats()] == ["a", "b"]
    del types.types["b"]
    await monitoring.overview(ME)
    assert [s.device_type for s in monitoring.stats()] == ["a"]
    await monitoring.close()


async def test_data_the_backend_shows_late_ages_the_snapshot_and_is_an_error() -> None:
    # As VictoriaMetrics with its default -search.latencyOffset: answers stamped "now", samples 31 s old.
    late = await service(Prometheus({"a_util": 10.0, "a_temp": 50.0}, lag=31.0), lpu("a", "a")).snapshot(
        ME, "a"
    )
    assert (late.time, late.lag_seconds, late.age_seconds) == (T, 31.0, 31.0)
    (error,) = [e for e in late.errors if e.code == "metrics_backend.lagging"]
    assert (error.source, error.metric) == ("prometheus", None)
    assert error.params == {"device_type": "a", "lag_seconds": 31.0, "limit_seconds": 3.0}
    fresh = await service(Prometheus({"a_util": 10.0, "a_temp": 50.0}, lag=0.5), lpu("a", "a")).snapshot(
        ME, "a"
    )
    assert (fresh.lag_seconds, fresh.age_seconds) == (0.5, 0.5)
    assert not [e for e in fresh.errors if e.code == "metrics_backend.lagging"]
