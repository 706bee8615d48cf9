"""How late the metrics backend shows a type's data, measured from the samples themselves.

An instant query's answer carries the time it was asked for, not the time of the samples behind it, so
a backend that hides its newest samples (VictoriaMetrics' default `-search.latencyOffset` of 30 s) looks
perfectly fresh. Each evaluation therefore also asks when the newest sample of one of the type's series
was taken (`nufi.prom.newest`): the difference is the snapshot's `lag_seconds`, counted in its age, and
beyond the staleness limit it is an error of the snapshot, so whatever acts on readings (the thermal
controller) waits instead of acting on old data. /readyz reports the lag too, without making NuFi
unready: serving goes on, the data is merely late.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from nufi.devices.spec import DeviceType
from nufi.health import DependencyStatus, elapsed_ms
from nufi.messages import Message
from nufi.monitoring.snapshots.probe import InstantQueries
from nufi.monitoring.snapshots.snapshot import LAGGING, MonitoringError
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable
from nufi.prom.newest import newest_sample_query

NAME = "metrics-freshness"


async def measured_lag(prometheus: InstantQueries, device_type: DeviceType, at: float) -> float | None:
    """How much older than `at` the newest sample of the type's temperature (else utilization) series
    is, as the backend answers at `at`; None when that cannot be told (no plain series in the
    expression, no sample, or the backend did not answer: the evaluation reports that itself)."""
    expression = device_type.metrics.temperature or device_type.metrics.utilization
    query = newest_sample_query(expression)
    if query is None:
        return None
    try:
        result = await prometheus.query(query, at)
    except (PrometheusQueryRejected, PrometheusUnavailable):
        return None
    newest = [sample.value for sample in result.samples if math.isfinite(sample.value)]
    if not newest:
        return None
    return max(at - max(newest), 0.0)


def lagging(device_type: str, lag_seconds: float, limit_seconds: float) -> MonitoringError:
    """The error of a snapshot whose newest sample was older than the staleness limit when read."""
    said = Message(
        LAGGING,
        {"device_type": device_type, "lag_seconds": lag_seconds, "limit_seconds": limit_seconds},
    )
    return MonitoringError("prometheus", said.text("en"), said=said)


@dataclass(frozen=True)
class LagCheck:
    """/readyz's report of how late the data was in the latest snapshot of each type being read;
    never makes NuFi unready. Not configured without a metrics engine (NUFI_PROMETHEUS_URL)."""

    lags: Callable[[], Mapping[str, float]]
    limit_seconds: float
    name: str = NAME
    configured: bool = True

    async def check(self) -> DependencyStatus:
        started = time.perf_counter()
        if not self.configured:
            return DependencyStatus(
                name=self.name,
                ok=False,
                configured=False,
                detail=Message("metrics_backend.not_configured").text("en"),
                required=False,
            )
        lags = self.lags()
        late = sorted(type_id for type_id, lag in lags.items() if lag > self.limit_seconds)
        limit = self.limit_seconds
        if not lags:
            said = Message("metrics_backend.not_measured")
        elif late:
            worst = max(lags[type_id] for type_id in late)
            said = Message(
                "metrics_backend.late",
                {"device_types": ", ".join(late), "lag_seconds": worst, "limit_seconds": limit},
            )
        else:
            said = Message(
                "metrics_backend.in_time", {"lag_seconds": max(lags.values()), "limit_seconds": limit}
            )
        return DependencyStatus(
            name=self.name,
            ok=not late,
            configured=True,
            detail=said.text("en"),
            latency_ms=elapsed_ms(started),
            required=False,
        )
