"""One evaluation of one device type: its expressions at one instant, the cluster's view, a snapshot.

Cost is fixed by construction: one instant query per reported quantity (memory is two), each reduced
to the mapped labels, one for the time of the type's newest sample (`nufi.monitoring.snapshots.lag`), and one
read of the cluster (from the watch-fed cache once it serves), whatever
the number of nodes and devices; everything is joined in memory. Kubernetes and Prometheus are asked
at the same time.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass

from nufi.cluster import ClusterReader
from nufi.devices.fetcher import DeviceFetcher
from nufi.devices.spec import DeviceType, MetricKey
from nufi.errors import DependencyUnavailable
from nufi.monitoring.snapshots.assembly import assemble_snapshot
from nufi.monitoring.snapshots.cluster_view import ClusterView, view_of
from nufi.monitoring.snapshots.freshness import SeriesMemory
from nufi.monitoring.snapshots.lag import lagging, measured_lag
from nufi.monitoring.snapshots.probe import InstantQueries, ReducedQueries, metrics_of
from nufi.monitoring.snapshots.snapshot import MonitoringError, Snapshot, said_of


@dataclass(frozen=True)
class Sources:
    """Where an evaluation reads from."""

    prometheus: InstantQueries
    # Nodes and pods: the watch-fed cache's while it serves, else listed.
    reader: ClusterReader


async def evaluate(
    device_type: DeviceType,
    fetcher: DeviceFetcher,
    sources: Sources,
    memory: SeriesMemory,
    *,
    at: float,
    stale_after_seconds: float,
) -> Snapshot:
    """The snapshot of `device_type` at `at`; raises PrometheusUnavailable when Prometheus answered
    none of its queries. A query that failed, a cluster that could not be read, or data older than
    `stale_after_seconds` when read (`nufi.monitoring.snapshots.lag`) is in `errors`."""
    probe = ReducedQueries(
        sources.prometheus, memory=memory, now=at, keep_labels=fetcher.labels_read(device_type) or ()
    )
    cluster_task = asyncio.ensure_future(_cluster_view(sources.reader, device_type, fetcher))
    lag_task = asyncio.ensure_future(measured_lag(sources.prometheus, device_type, at))
    try:
        readings = await fetcher.readings(device_type, probe, at=at)
        probe.raise_if_nothing_answered()
    except BaseException:
        for task in (cluster_task, lag_task):
            task.cancel()
        await asyncio.gather(cluster_task, lag_task, return_exceptions=True)
        raise
    memory.keep_only(probe.asked)
    view, cluster_error = await cluster_task
    queries = device_type.metrics.queries()
    errors = []
    for failure in probe.failures:
        metrics: list[MetricKey | None] = [*metrics_of(failure.expression, queries)] or [None]
        errors += [
            MonitoringError(
                "prometheus",
                failure.error.detail,
                metric=metric,
                query=failure.expression,
                said=said_of(failure.error),
            )
            for metric in metrics
        ]
    if cluster_error is not None:
        errors.append(cluster_error)
    lag = await lag_task
    if lag is not None and lag > stale_after_seconds:
        errors.append(lagging(device_type.id, lag, stale_after_seconds))
    # Joining thousands of devices takes a while: in a worker thread, reads go on being answered.
    snapshot = await asyncio.to_thread(
        assemble_snapshot,
        device_type,
        readings,
        time=at,
        stale_after_seconds=stale_after_seconds,
        cluster=view,
        errors=errors,
    )
    return snapshot if lag is None else dataclasses.replace(snapshot, lag_seconds=lag)


async def _cluster_view(
    reader: ClusterReader, device_type: DeviceType, fetcher: DeviceFetcher
) -> tuple[ClusterView | None, MonitoringError | None]:
    try:
        state = await reader.state()
    except DependencyUnavailable as exc:
        return None, MonitoringError("kubernetes", exc.detail, said=said_of(exc))
    return await asyncio.to_thread(view_of, device_type, fetcher, state), None
