"""Putting a snapshot together in memory: readings, staleness, plausibility, inventory and attribution.

A stale value is emptied first; what is left is held to `nufi.devices.plausibility`, whatever the
type or its fetcher, so an implausible value is null in the snapshot (and never reaches anything that
acts on readings) and is named in its errors instead."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from nufi.devices.capacity import NodeInventory
from nufi.devices.plausibility import Implausible, plausible_reading
from nufi.devices.readings import DeviceReading, Readings
from nufi.devices.spec import DeviceType, MetricKey
from nufi.messages import Message
from nufi.monitoring.snapshots.attribution import attribute_node
from nufi.monitoring.snapshots.cluster_view import ClusterView
from nufi.monitoring.snapshots.snapshot import (
    DeviceEntry,
    Health,
    MonitoringError,
    NodeEntry,
    NotReporting,
    Snapshot,
    StaleMetric,
    Summary,
)

# Which device fields a silent quantity empties: the total of used & free needs both.
_FIELDS_OF: dict[MetricKey, tuple[str, ...]] = {
    "utilization": ("utilization_percent",),
    "memory_used": ("memory_used_bytes",),
    "memory_total": ("memory_total_bytes",),
    "memory_free": ("memory_total_bytes",),
    "temperature": ("temperature_celsius",),
    "power": ("power_watts",),
    "health": ("health",),
}

# Where a quantity's own value sits on a reading (memory_free only ever gives the total).
_VALUE_OF: dict[MetricKey, str] = {
    "utilization": "utilization_percent",
    "memory_used": "memory_used_bytes",
    "memory_total": "memory_total_bytes",
    "temperature": "temperature_celsius",
    "power": "power_watts",
    "health": "health",
}


def assemble_snapshot(
    device_type: DeviceType,
    readings: Readings,
    *,
    time: float,
    stale_after_seconds: float,
    cluster: ClusterView | None,
    errors: Sequence[MonitoringError] = (),
) -> Snapshot:
    """The snapshot of `device_type` at `time`; `cluster` is None when Kubernetes could not be read."""
    stale: list[StaleMetric] = []
    implausible: list[Implausible] = []
    by_node: dict[str, list[DeviceEntry]] = {}
    attributed_nodes: set[str] = set()
    for reading in readings.devices:
        silent = _silent_metrics(reading, time, stale_after_seconds)
        stale += silent
        checked, wrong = plausible_reading(_without_silent(reading, device_type, silent))
        implausible += wrong
        by_node.setdefault(reading.node, []).append(_device_entry(checked))
        if reading.pod is not None:
            attributed_nodes.add(reading.node)
    counts = {n.node: n for n in cluster.inventory.nodes} if cluster is not None else {}
    nodes = tuple(
        _node_entry(
            name,
            by_node.get(name, []),
            cluster,
            counts.get(name),
            exporter_attributes=name in attributed_nodes,
        )
        for name in sorted(_node_names(by_node, cluster))
    )
    problems = _problems(device_type, readings, implausible)
    return Snapshot(
        device_type=device_type.id,
        time=time,
        summary=Summary.of(nodes),
        nodes=nodes,
        stale=tuple(stale),
        errors=(*problems, *errors),
        not_reporting=tuple(
            NotReporting(node.node, node.capacity) for node in nodes if node.capacity and not node.devices
        ),
    )


def _problems(
    device_type: DeviceType, readings: Readings, implausible: Sequence[Implausible]
) -> list[MonitoringError]:
    """What Prometheus could not answer, then each value that cannot be right."""
    problems = [
        MonitoringError(
            "prometheus",
            problem.message,
            metric=problem.metric,
            query=problem.query,
            said=problem.said if isinstance(problem.said, Message) else None,
        )
        for problem in readings.problems
    ]
    queries = device_type.metrics.queries()
    problems += [
        MonitoringError(
            "plausibility",
            item.message,
            metric=item.metric,
            query=queries.get(item.metric),
            node=item.node,
            device=item.device,
            said=item.said,
        )
        for item in implausible
    ]
    return problems


def _silent_metrics(reading: DeviceReading, now: float, limit: float) -> list[StaleMetric]:
    found = []
    for metric, seen in sorted(reading.sampled_at.items()):
        silent = now - seen
        if silent > limit:
            last = getattr(reading, _VALUE_OF[metric]) if metric in _VALUE_OF else None
            found.append(StaleMetric(metric, reading.node, reading.device, seen, silent, limit, last))
    return found


def _without_silent(
    reading: DeviceReading, device_type: DeviceType, silent: Iterable[StaleMetric]
) -> DeviceReading:
    emptied: set[str] = set()
    memory = device_type.metrics.memory
    for item in silent:
        emptied.update(_FIELDS_OF[item.metric])
        if item.metric == "memory_used" and memory is not None and memory.mode == "used_free":
            emptied.add("memory_total_bytes")
    cleared: dict[str, Any] = dict.fromkeys(emptied)
    return dataclasses.replace(reading, **cleared) if emptied else reading


def _device_entry(reading: DeviceReading) -> DeviceEntry:
    return DeviceEntry(**reading.values(), health=_health(reading.health))


def _health(value: float | None) -> Health:
    # Anything but 1 or 0 was emptied by the plausibility rule.
    if value == 1:
        return "ok"
    if value == 0:
        return "unhealthy"
    return "unknown"


def _node_names(by_node: dict[str, list[DeviceEntry]], cluster: ClusterView | None) -> set[str]:
    names = set(by_node)
    if cluster is not None:
        names |= {n.node for n in cluster.inventory.nodes if n.capacity > 0 or n.allocated > 0}
        names |= set(cluster.holdings)
    return names


def _node_entry(
    name: str,
    devices: list[DeviceEntry],
    cluster: ClusterView | None,
    counts: NodeInventory | None,
    *,
    exporter_attributes: bool,
) -> NodeEntry:
    if cluster is None:
        return NodeEntry(name, None, None, None, None, None, tuple(devices))
    capacity = counts.capacity if counts else 0
    attribution = attribute_node(
        cluster.holdings.get(name, ()),
        capacity=capacity,
        reported_devices=len(devices),
        exporter_attributes=exporter_attributes,
    )
    owner = attribution.device_owner
    if owner is not None:
        devices = [
            d if d.pod is not None else dataclasses.replace(d, pod=owner.pod, namespace=owner.namespace)
            for d in devices
        ]
    return NodeEntry(
        node=name,
        capacity=capacity,
        allocatable=counts.allocatable if counts else 0,
        allocated=counts.allocated if counts else 0,
        pods=attribution.pods,
        workload=attribution.workload,
        devices=tuple(devices),
    )
