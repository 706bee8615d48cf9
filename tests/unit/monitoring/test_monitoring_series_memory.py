"""Series remembered between evaluations, and the reduced queries a fetcher asks through."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.models.promql import parse_expression
from nufi.monitoring.snapshots.freshness import SeriesMemory
from nufi.monitoring.snapshots.probe import ReducedQueries, reduced_query
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult, Sample

T = 1_700_000_000.0


def vector(at: float, **values: float) -> QueryResult:
    return QueryResult(
        "vector", samples=tuple(Sample({"node": "n", "device": d}, at, v) for d, v in values.items())
    )


def by_device(result: QueryResult) -> dict[str, tuple[float, float]]:
    return {s.metric["device"]: (s.value, s.timestamp) for s in result.samples}


def test_a_silent_series_comes_back_with_its_last_value_and_time_until_the_window_ends() -> None:
    memory = SeriesMemory(window_seconds=10)
    assert by_device(memory.recall("q", vector(T, a=1, b=2), now=T)) == {"a": (1, T), "b": (2, T)}
    assert by_device(memory.recall("q", vector(T + 5, a=3), now=T + 5)) == {"a": (3, T + 5), "b": (2, T)}
    assert by_device(memory.recall("q", vector(T + 10, a=4), now=T + 10)) == {
        "a": (4, T + 10),
        "b": (2, T),
    }
    # Past the window it is forgotten for good, even if a later answer is empty.
    assert by_device(memory.recall("q", vector(T + 10.5, a=5), now=T + 10.5)) == {"a": (5, T + 10.5)}
    assert by_device(memory.recall("q", vector(T + 11), now=T + 11)) == {"a": (5, T + 10.5)}


def test_a_nan_sample_is_silence_so_the_last_real_value_ages_as_on_an_engine_that_drops_nan() -> None:
    memory = SeriesMemory(window_seconds=10)
    nan = float("nan")
    assert by_device(memory.recall("q", vector(T, a=1, b=nan), now=T)) == {"a": (1, T)}
    # `a` turns NaN: its last real value comes back with the time it was heard, as if it had vanished.
    assert by_device(memory.recall("q", vector(T + 5, a=nan, b=nan), now=T + 5)) == {"a": (1, T)}
    assert by_device(memory.recall("q", vector(T + 11, a=nan), now=T + 11)) == {}
    assert by_device(memory.recall("q", vector(T + 12, a=2), now=T + 12)) == {"a": (2, T + 12)}


def test_queries_are_remembered_apart_and_dropped_when_no_longer_asked() -> None:
    memory = SeriesMemory(window_seconds=10)
    memory.recall("q1", vector(T, a=1), now=T)
    memory.recall("q2", vector(T, a=2), now=T)
    assert memory.series == 2
    memory.keep_only({"q1"})
    assert memory.series == 1
    assert by_device(memory.recall("q2", vector(T + 1), now=T + 1)) == {}
    assert by_device(memory.recall("q1", vector(T + 1), now=T + 1)) == {"a": (1, T)}


@given(
    answers=st.lists(
        st.dictionaries(st.sampled_from("abcdef"), st.floats(0, 100), max_size=6), min_size=1, max_size=12
    )
)
@pytest.mark.parametrize("labels", [(), ("node", "device")])
def test_every_answer_is_present_and_every_silent_series_is_within_the_window(
    answers: list[dict[str, float]], labels: tuple[str, ...]
) -> None:
    memory = SeriesMemory(window_seconds=3)
    last_seen: dict[str, float] = {}
    for step, answer in enumerate(answers):
        now = T + step
        recalled = by_device(memory.recall("q", vector(now, **answer), now=now, labels=labels))
        last_seen.update(dict.fromkeys(answer, now))
        expected = {d for d, seen in last_seen.items() if d in answer or now - seen <= 3}
        assert set(recalled) == expected
        for device, (value, stamp) in recalled.items():
            if device in answer:
                assert (value, stamp) == (answer[device], now)
            else:
                assert stamp == last_seen[device]


class Scripted:
    def __init__(self, *outcomes: QueryResult | Exception) -> None:
        self.outcomes = list(outcomes)
        self.asked: list[str] = []

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        self.asked.append(promql)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def test_the_reduced_query_keeps_only_the_mapped_labels_and_parses() -> None:
    reduced = reduced_query('lpu_temp{job="a"}', ["node", "device", "node"])
    assert reduced == 'max by (node, device) (lpu_temp{job="a"})'
    parse_expression(reduced)
    assert reduced_query("x", []) == "x"


async def test_the_probe_asks_the_plain_reduced_expression_and_nothing_else() -> None:
    prometheus = Scripted(vector(T, a=1))
    probe = ReducedQueries(prometheus, memory=SeriesMemory(window_seconds=10), now=T, keep_labels=["node"])
    await probe.query("lpu_temp", T)
    assert prometheus.asked == ["max by (node) (lpu_temp)"]
    assert "[" not in prometheus.asked[0]  # no range, no subquery
    assert probe.answered == 1 and probe.evaluated_at == T and probe.asked == {"max by (node) (lpu_temp)"}


async def test_a_query_that_fails_is_recorded_and_answered_from_memory() -> None:
    memory = SeriesMemory(window_seconds=10)
    down = PrometheusUnavailable(code="prometheus.timed_out", params={"url": "http://p", "seconds": 10})
    await ReducedQueries(Scripted(vector(T, a=1)), memory=memory, now=T).query("q")
    probe = ReducedQueries(Scripted(down), memory=memory, now=T + 1)
    assert by_device(await probe.query("q")) == {"a": (1, T)}
    assert [f.expression for f in probe.failures] == ["q"] and probe.answered == 0
    with pytest.raises(PrometheusUnavailable):
        probe.raise_if_nothing_answered()


async def test_a_rejected_query_names_the_admins_expression() -> None:
    rejected = PrometheusQueryRejected(
        code="prometheus.query_rejected", query="max by (node) (bad)", error_type="bad_data", error="oops"
    )
    probe = ReducedQueries(
        Scripted(rejected), memory=SeriesMemory(window_seconds=10), now=T, keep_labels=["node"]
    )
    with pytest.raises(PrometheusQueryRejected) as caught:
        await probe.query("bad")
    assert caught.value.query == "bad" and caught.value.params["query"] == "bad"
    assert "max by" not in caught.value.detail and "(bad)" not in caught.value.detail
