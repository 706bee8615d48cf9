"""Snapshots of a given shape, shared by the paging tests."""

from __future__ import annotations

from nufi.monitoring.snapshots.snapshot import (
    DeviceEntry,
    MonitoringError,
    NodeEntry,
    NotReporting,
    Snapshot,
    StaleMetric,
    Summary,
)

T = 1_700_000_000.25


def device(
    name: str,
    *,
    temperature: float | None = None,
    utilization: float | None = None,
    used: float | None = None,
    total: float | None = None,
) -> DeviceEntry:
    return DeviceEntry(
        device=name,
        utilization_percent=utilization,
        memory_used_bytes=used,
        memory_total_bytes=total,
        temperature_celsius=temperature,
    )


def node(name: str, *devices: DeviceEntry) -> NodeEntry:
    return NodeEntry(
        node=name,
        capacity=len(devices),
        allocatable=len(devices),
        allocated=0,
        pods=(),
        workload=None,
        devices=devices,
    )


def snapshot_of(nodes: list[NodeEntry], *, time: float = T) -> Snapshot:
    stale = tuple(
        StaleMetric("temperature", entry.node, d.device, time - 400, 400, 300)
        for entry in nodes
        for d in entry.devices[:1]
    )
    errors = (MonitoringError("prometheus", "query failed", metric="power"),)
    silent = tuple(NotReporting(entry.node, entry.capacity or 1) for entry in nodes if not entry.devices)
    return Snapshot("gpu", time, Summary.of(nodes), tuple(nodes), stale, errors, silent)


def cluster(nodes: int = 1000, devices: int = 8) -> Snapshot:
    return snapshot_of(
        [
            node(
                f"node-{n:04d}",
                *(
                    device(
                        f"gpu-{d}",
                        temperature=None if n % 7 == 0 else float((n * 31 + d) % 90),
                        utilization=float((n * 13 + d * 5) % 101),
                        used=float(n % 10) * 2**30,
                        total=80 * 2**30,
                    )
                    for d in range(devices)
                ),
            )
            for n in range(nodes)
        ]
    )
