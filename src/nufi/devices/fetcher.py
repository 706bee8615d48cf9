"""`DeviceFetcher`: the one interface a hardware integration implements, and the generic fetcher.

A fetcher answers for a device type what the cluster has (the inventory, from one shared read of the
cluster) and what the devices report (readings, from Prometheus), and says how it reads series: which
labels it looks at and which sample values are real measurements. Callers use nothing else, so a
plug-in fetcher is served exactly like a built-in one. The generic fetcher answers from the type's spec
alone: its resource key, label mapping and expressions. Vendor fetchers subclass it and override
`usable` (and `label_value` with `labels_read`) only where an exporter needs it.

Cost is fixed by construction: the inventory is computed in memory from the request's one node list
and one pod list, and readings cost one instant query per reported quantity (memory is two: used, and
total or free), whatever the number of nodes and devices.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime
from time import time as wall_clock
from typing import Protocol, runtime_checkable

from nufi.cluster import ClusterState
from nufi.devices.capacity import Inventory, build_inventory
from nufi.devices.readings import QueryOutcome, Readings, assemble_readings, finite_value, plain_label
from nufi.devices.spec import DeviceType, MetricKey
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult


class PrometheusQueries(Protocol):
    """The part of the Prometheus gateway a fetcher uses."""

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult: ...


@runtime_checkable
class DeviceFetcher(Protocol):
    """What NuFi needs from a hardware integration.

    `inventory` returns, per node, capacity, allocatable and allocated for the type's resource key,
    computed from `cluster`, the request's one read of nodes and pods. `readings` returns normalised
    per-device values (%, bytes, °C, W) with node, device, pod and namespace; a quantity the type does
    not report is None, and a failed query is a problem of that quantity rather than an error of the
    whole call; it raises PrometheusUnavailable when Prometheus cannot be reached at all.

    `labels_read` names the series labels `readings` looks at, so callers may reduce every series to
    them before it leaves Prometheus; None means the fetcher may read any label. `usable` tells a
    real measurement from an exporter's sentinel or a non-number; every value NuFi shows of the type,
    instant or over time, passes through it.
    """

    def labels_read(self, device_type: DeviceType) -> tuple[str, ...] | None: ...

    def usable(self, metric: MetricKey, value: float) -> bool: ...

    def inventory(self, device_type: DeviceType, cluster: ClusterState) -> Inventory: ...

    async def readings(
        self, device_type: DeviceType, prometheus: PrometheusQueries, *, at: float | None = None
    ) -> Readings: ...


class GenericFetcher:
    """A fetcher driven purely by a device type's spec."""

    def labels_read(self, device_type: DeviceType) -> tuple[str, ...] | None:
        labels = device_type.labels
        return tuple(name for name in (labels.node, labels.device, labels.pod, labels.namespace) if name)

    def usable(self, metric: MetricKey, value: float) -> bool:
        """Whether a sample value is a real measurement; vendors override it to drop sentinels."""
        return finite_value(metric, value)

    def inventory(self, device_type: DeviceType, cluster: ClusterState) -> Inventory:
        return build_inventory(device_type.resource_key, cluster.nodes, cluster.pods)

    async def readings(
        self, device_type: DeviceType, prometheus: PrometheusQueries, *, at: float | None = None
    ) -> Readings:
        queries = device_type.metrics.queries()
        queried_at = wall_clock() if at is None else at
        outcomes = await asyncio.gather(*(_run(prometheus, query, at) for query in queries.values()))
        by_metric: dict[MetricKey, QueryOutcome] = dict(zip(queries, outcomes, strict=True))
        _raise_if_unreachable(by_metric)
        return assemble_readings(
            device_type.labels,
            device_type.metrics,
            by_metric,
            queried_at=queried_at,
            label_value=self.label_value,
            usable=self.usable,
        )

    def label_value(self, labels: Mapping[str, str], name: str) -> str | None:
        """The value of label `name` on a series; a vendor that overrides it to read other label
        names also widens `labels_read`."""
        return plain_label(labels, name)


async def _run(prometheus: PrometheusQueries, query: str, at: float | None) -> QueryOutcome:
    try:
        return await prometheus.query(query, at)
    except (PrometheusQueryRejected, PrometheusUnavailable) as exc:
        return exc


def _raise_if_unreachable(outcomes: Mapping[MetricKey, QueryOutcome]) -> None:
    # A rejected expression spoils one quantity; an unreachable Prometheus spoils the whole call.
    for outcome in outcomes.values():
        if isinstance(outcome, PrometheusUnavailable):
            raise outcome
