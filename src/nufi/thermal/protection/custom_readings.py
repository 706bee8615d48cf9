"""The readings of a policy's own condition: its expression evaluated now, one value per device under
the type's node and device labels, each node its worst device. A failed query is no reading (stale):
protection changes nothing on a condition it cannot read."""

from __future__ import annotations

import math
from collections.abc import Mapping

from nufi.devices.spec import Labels
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.prom import PrometheusGateway
from nufi.thermal.protection.temperatures import DeviceKey, PodKey, Readings


async def custom_readings(
    prometheus: PrometheusGateway,
    expression: str,
    labels: Labels,
    pod_devices: Mapping[PodKey, tuple[DeviceKey, ...]],
) -> Readings:
    try:
        result = await prometheus.query(expression)
    except NufiError as exc:
        return Readings({}, {}, pod_devices, unusable=Message(exc.code, exc.params))
    devices: dict[DeviceKey, float | None] = {}
    for sample in result.samples:
        node, device = sample.metric.get(labels.node), sample.metric.get(labels.device)
        if not node or not device or not math.isfinite(sample.value):
            continue
        key = (node, device)
        devices[key] = max(sample.value, devices.get(key) or -math.inf)
    nodes: dict[str, float | None] = {}
    for (node, _), value in devices.items():
        if value is not None:
            nodes[node] = max(value, nodes.get(node) or -math.inf)
    return Readings(nodes, devices, pod_devices)
