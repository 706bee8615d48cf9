"""`DeviceFetcher`: the one interface a hardware integration implements, and the generic fetcher.

A fetcher answers two questions about a device type: what the cluster has (the inventory, from the
Kubernetes API) and what the devices report (readings, from Prometheus). The generic fetcher answers
both from the type's spec alone: its resource key, label mapping and expressions. Vendor fetchers
subclass it and override the two hooks, `label_value` and `usable`, only where an exporter needs it.

Cost is fixed by construction: one paginated node list and one paginated pod list per inventory, and
one instant query per reported quantity per readings call (memory is two: used, and total or free),
whatever the number of nodes and devices. Everything is joined in memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime
from time import time as wall_clock
from typing import Protocol, runtime_checkable

from nufi.cluster import ClusterGateway
from nufi.cluster.inventory import PAGE_SIZE, list_bound_pods, list_nodes
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

    `inventory` returns, per node, capacity, allocatable and allocated for the type's resource key.
    `readings` returns normalised per-device values (%, bytes, °C, W) with node, device, pod and
    namespace; a quantity the type does not report is None, and a failed query is a problem of that
    quantity rather than an error of the whole call. Both raise DependencyUnavailable when Kubernetes
    or Prometheus cannot be reached at all.
    """

    async def inventory(self, device_type: DeviceType, cluster: ClusterGateway) -> Inventory: ...

    async def readings(
        self, device_type: DeviceType, prometheus: PrometheusQueries, *, at: float | None = None
    ) -> Readings: ...


class GenericFetcher:
    """A fetcher driven purely by a device type's spec."""

    def __init__(self, *, page_size: int = PAGE_SIZE) -> None:
        self._page_size = page_size

    async def inventory(self, device_type: DeviceType, cluster: ClusterGateway) -> Inventory:
        nodes, pods = await asyncio.gather(
            list_nodes(cluster, page_size=self._page_size),
            list_bound_pods(cluster, page_size=self._page_size),
        )
        return build_inventory(device_type.resource_key, nodes, pods)

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
        """The value of label `name` on a series; vendors override it to read older label names."""
        return plain_label(labels, name)

    def usable(self, metric: MetricKey, value: float) -> bool:
        """Whether a sample value is a real measurement; vendors override it to drop sentinels."""
        return finite_value(metric, value)


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
