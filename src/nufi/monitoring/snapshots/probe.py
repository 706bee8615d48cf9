"""The Prometheus a fetcher sees during one evaluation: each expression reduced to the mapped labels.

Exporters attach a dozen labels to every series, and carrying them costs more than evaluating the
query, so each expression `E` is asked as `max by (<node>, <device>, <pod>, <namespace>) (E)` when the
fetcher reads no other labels. That also joins, per instant, the series of a restarted exporter (a new
`instance`) with those of the old one. Nothing else is added: what a series did before now is
remembered in memory between evaluations (`nufi.monitoring.snapshots.freshness`), not asked of Prometheus.

The probe keeps count: a query Prometheus could not answer (unreachable, timed out, too large) is
recorded and answered from memory alone, so the other quantities still arrive; the caller decides
whether anything came back at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from nufi.devices.spec import MetricKey
from nufi.monitoring.snapshots.freshness import SeriesMemory
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult
from nufi.prom.promql import aggregate


class InstantQueries(Protocol):
    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult: ...


@dataclass(frozen=True)
class QueryFailure:
    """An expression whose query Prometheus could not answer."""

    expression: str
    error: PrometheusUnavailable


def reduced_query(expression: str, keep_labels: Sequence[str]) -> str:
    """`expression` with every series reduced to `keep_labels` (unchanged when there are none)."""
    if not keep_labels:
        return expression
    return aggregate("max", expression, list(dict.fromkeys(keep_labels)))


class ReducedQueries:
    """A `PrometheusQueries` for a fetcher, for one evaluation; afterwards `answered`, `failures` and
    `evaluated_at` say how it went."""

    def __init__(
        self,
        prometheus: InstantQueries,
        *,
        memory: SeriesMemory,
        now: float,
        keep_labels: Sequence[str] = (),
    ) -> None:
        self._prometheus = prometheus
        self._memory = memory
        self._now = now
        self._keep = tuple(dict.fromkeys(keep_labels))
        self.asked: set[str] = set()
        self.answered = 0
        self.failures: list[QueryFailure] = []
        self.evaluated_at: float | None = None

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        reduced = reduced_query(promql, self._keep)
        self.asked.add(reduced)
        try:
            result = await self._prometheus.query(reduced, time)
        except PrometheusQueryRejected as exc:
            # Name the expression the admin wrote, not the reduction around it.
            raise PrometheusQueryRejected(
                code="prometheus.query_rejected",
                query=promql,
                error_type=exc.error_type,
                error=exc.error,
            ) from exc
        except PrometheusUnavailable as exc:
            self.failures.append(QueryFailure(promql, exc))
            return self._memory.recall(reduced, QueryResult("vector"), now=self._now, labels=self._keep)
        self.answered += 1
        if result.result_type == "vector" and result.samples:
            at = result.samples[0].timestamp
            self.evaluated_at = at if self.evaluated_at is None else max(self.evaluated_at, at)
        return self._memory.recall(reduced, result, now=self._now, labels=self._keep)

    def raise_if_nothing_answered(self) -> None:
        """Prometheus unreachable for every query: the evaluation has nothing to show."""
        if self.answered == 0 and self.failures:
            raise self.failures[0].error


def metrics_of(expression: str, queries: Mapping[MetricKey, str]) -> list[MetricKey]:
    """The quantities (of a type's `metrics.queries()`) that use `expression`."""
    return [metric for metric, query in queries.items() if query == expression]
