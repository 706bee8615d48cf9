"""What protection reads from a monitoring snapshot, per node and per device: a temperature, and a
health (1 unhealthy, 0 healthy, None unknown).

A node's reading is the worst of its devices: the hottest, or unhealthy when any is. It is None
(unusable) when any device of the node gave no usable reading (missing, stale, implausible: the
snapshot already says so with None; health unknown), when the snapshot could not read the quantity at
all, or when the snapshot itself is too old: then a node whose hot or unhealthy device went silent is
not mistaken for a fine one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from nufi.messages import Message
from nufi.monitoring.snapshots.snapshot import DeviceEntry, Snapshot

DeviceKey = tuple[str, str]
PodKey = tuple[str, str]


@dataclass(frozen=True)
class Temperatures:
    nodes: Mapping[str, float | None]
    devices: Mapping[DeviceKey, float | None]
    # The devices monitoring attributes to each pod, by (namespace, pod).
    pod_devices: Mapping[PodKey, tuple[DeviceKey, ...]]
    # Why every reading is unusable, when one reason covers them all.
    unusable: Message | None = None

    def node(self, node: str) -> float | None:
        return self.nodes.get(node)

    def device(self, key: DeviceKey) -> float | None:
        return self.devices.get(key)


# The same shape serves every condition: per node, per device, and which devices each pod holds.
Readings = Temperatures


def temperatures(snapshot: Snapshot | None, *, max_age_seconds: float) -> Temperatures:
    return _readings(snapshot, lambda d: d.temperature_celsius, "temperature", max_age_seconds)


def health(snapshot: Snapshot | None, *, max_age_seconds: float) -> Readings:
    """1.0 for a device reading unhealthy, 0.0 for healthy, None where its health is unknown."""
    return _readings(snapshot, _unhealthy, "health", max_age_seconds)


def _unhealthy(device: DeviceEntry) -> float | None:
    if device.health == "unknown":
        return None
    return 1.0 if device.health == "unhealthy" else 0.0


def _readings(
    snapshot: Snapshot | None,
    value_of: Callable[[DeviceEntry], float | None],
    metric: str,
    max_age_seconds: float,
) -> Readings:
    if snapshot is None:
        return Temperatures({}, {}, {}, unusable=Message("thermal.stale.no_snapshot"))
    pod_devices: dict[PodKey, list[DeviceKey]] = {}
    devices: dict[DeviceKey, float | None] = {}
    nodes: dict[str, float | None] = {}
    for node in snapshot.nodes:
        readings: list[float | None] = []
        for device in node.devices:
            key = (node.node, device.device)
            devices[key] = value_of(device)
            readings.append(devices[key])
            if device.pod is not None and device.namespace is not None:
                pod_devices.setdefault((device.namespace, device.pod), []).append(key)
        present = [value for value in readings if value is not None]
        nodes[node.node] = max(present) if present and len(present) == len(readings) else None
    attributed = {pod: tuple(keys) for pod, keys in pod_devices.items()}
    failed = [e for e in snapshot.errors if e.source == "prometheus" and e.metric in (None, metric)]
    unusable = None
    if snapshot.age_seconds > max_age_seconds:
        unusable = Message(
            "thermal.stale.snapshot_old",
            {"age_seconds": snapshot.age_seconds, "limit_seconds": max_age_seconds},
        )
    elif failed:
        # The failure as monitoring words it: its message when it has one, else its English.
        reason = failed[0].said or failed[0].message
        unusable = Message("thermal.stale.unreadable", {"reason": reason})
    if unusable is not None:
        return Temperatures(dict.fromkeys(nodes), dict.fromkeys(devices), attributed, unusable=unusable)
    return Temperatures(nodes, devices, attributed)
