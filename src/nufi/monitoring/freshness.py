"""Last value and last-seen time of every series, from one instant query per expression.

Prometheus marks a series stale as soon as a scrape misses it, so a plain instant query simply stops
returning a device whose exporter went quiet: nothing would tell "silent" from "never there". Each
expression `E` is therefore asked as

    (E or last_over_time((E)[W:S]))
      or label_replace(max_over_time(timestamp(E)[W:S]) unless E, "nufi_seen", "last", "", "")

where `S` is the scrape interval and `W` the window. Every series present now comes back once, as
`E` gives it. A series that went silent within the window comes back twice: its last value, and,
marked `nufi_seen="last"`, the last subquery step at which `E` still produced it. The probe stamps
the value with that time, so the fetcher's `DeviceReading.sampled_at` carries it and staleness is a
comparison in memory. (Subquery steps fall on multiples of `S`: the plain `E` is what shows a series
younger than one step.) Only silent series cost a second sample, which keeps both the answer and its
decoding close to the plain query's.

Before that, each series is reduced to the labels the device type maps (`max by (<node>, <device>,
<pod>, <namespace>) (E)`) when the fetcher reads no others: exporters attach a dozen labels to every
series, and carrying them costs more than evaluating the query. It also joins, per step, the series
of a restarted exporter (a new `instance`) with those of the old one, so the old ones cannot look
stale next to the new ones.

A series Prometheus still returns counts as fresh. That holds for everything a scrape stops
delivering, which Prometheus marks stale at once; only series it could not mark (after a restart of
Prometheus itself) linger for its 5-minute lookback.

The probe also keeps count: a query Prometheus could not answer (unreachable, timed out) is recorded
and answered with an empty vector, so the other quantities still arrive; the caller decides whether
anything came back at all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from nufi.devices.spec import MetricKey
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult, Sample
from nufi.prom.promql import aggregate, quote_label_value

SEEN_LABEL = "nufi_seen"
_NAME = "__name__"


class InstantQueries(Protocol):
    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult: ...


@dataclass(frozen=True)
class QueryFailure:
    """An expression whose query Prometheus could not answer."""

    expression: str
    error: PrometheusUnavailable


def duration(seconds: float) -> str:
    """A PromQL duration for `seconds`, to the millisecond (at least 1 ms), e.g. `15s`, `1500ms`."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"a duration must be a positive number of seconds, got {seconds}")
    millis = max(round(seconds * 1000), 1)
    return f"{millis // 1000}s" if millis % 1000 == 0 else f"{millis}ms"


def last_seen_query(
    expression: str, *, window_seconds: float, step_seconds: float, keep_labels: Sequence[str] = ()
) -> str:
    """`expression` asked for its latest value and last-seen time per series (see the module doc);
    with `keep_labels`, each series is first reduced to those labels."""
    if keep_labels:
        expression = aggregate("max", expression, list(dict.fromkeys(keep_labels)))
    window = f"[{duration(window_seconds)}:{duration(step_seconds)}]"
    values = f"({expression}) or last_over_time(({expression}){window})"
    seen = f"max_over_time(timestamp({expression}){window}) unless ({expression})"
    return f'({values}) or label_replace({seen}, {quote_label_value(SEEN_LABEL)}, "last", "", "")'


def join_parts(result: QueryResult) -> tuple[QueryResult, float | None]:
    """One sample per series: its value, stamped with its last-seen time when it is silent now; and
    the instant Prometheus evaluated the query at (None when nothing came back)."""
    if result.result_type != "vector" or not result.samples:
        return result, None
    evaluated_at = result.samples[0].timestamp
    values: list[Sample] = []
    seen: dict[frozenset[tuple[str, str]], float] = {}
    for sample in result.samples:
        if SEEN_LABEL in sample.metric:
            if math.isfinite(sample.value):
                seen[_identity(sample.metric)] = sample.value
        else:
            values.append(sample)
    if seen:
        values = [_stamped(sample, seen) for sample in values]
    return QueryResult("vector", samples=tuple(values), warnings=result.warnings), evaluated_at


def _identity(labels: Mapping[str, str]) -> frozenset[tuple[str, str]]:
    # `last_over_time` keeps the metric name in some Prometheus versions and `max_over_time` never does.
    return frozenset((k, v) for k, v in labels.items() if k not in (SEEN_LABEL, _NAME))


def _stamped(sample: Sample, seen: Mapping[frozenset[tuple[str, str]], float]) -> Sample:
    last = seen.get(_identity(sample.metric))
    return sample if last is None else Sample(metric=sample.metric, timestamp=last, value=sample.value)


class FreshnessProbe:
    """A `PrometheusQueries` for a fetcher: every query asks for last value and last-seen time.

    One probe serves one snapshot; afterwards `answered`, `failures` and `evaluated_at` say how it went.
    """

    def __init__(
        self,
        prometheus: InstantQueries,
        *,
        window_seconds: float,
        step_seconds: float,
        keep_labels: Sequence[str] = (),
    ) -> None:
        self._prometheus = prometheus
        self._window = window_seconds
        self._step = step_seconds
        self._keep = tuple(keep_labels)
        self.answered = 0
        self.failures: list[QueryFailure] = []
        self.evaluated_at: float | None = None

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        wrapped = last_seen_query(
            promql, window_seconds=self._window, step_seconds=self._step, keep_labels=self._keep
        )
        try:
            result = await self._prometheus.query(wrapped, time)
        except PrometheusQueryRejected as exc:
            # Name the expression the admin wrote, not the wrapper around it.
            raise PrometheusQueryRejected(
                f"Prometheus rejected the query for `{promql}` ({exc.error_type}): {exc.error}. "
                "Fix the PromQL expression.",
                query=promql,
                error_type=exc.error_type,
                error=exc.error,
            ) from exc
        except PrometheusUnavailable as exc:
            self.failures.append(QueryFailure(promql, exc))
            return QueryResult("vector")
        self.answered += 1
        joined, evaluated_at = join_parts(result)
        if evaluated_at is not None:
            self.evaluated_at = max(self.evaluated_at or evaluated_at, evaluated_at)
        return joined

    def raise_if_nothing_answered(self) -> None:
        """Prometheus unreachable for every query: the snapshot has nothing to show."""
        if self.answered == 0 and self.failures:
            raise self.failures[0].error


def metrics_of(expression: str, queries: Mapping[MetricKey, str]) -> list[MetricKey]:
    """The quantities (of a type's `metrics.queries()`) that use `expression`."""
    return [metric for metric, query in queries.items() if query == expression]
