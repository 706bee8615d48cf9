"""How many devices each node should have, by its status, for the rules about devices that do not
report: served on NuFi's own /metrics as `nufi_device_capacity`, because Prometheus alone cannot know
it (kube-state-metrics may not run, and names resources its own way)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from nufi.cluster.inventory import NodeResources

NodesNow = Callable[[], Sequence[NodeResources] | None]


@dataclass(frozen=True)
class CapacitySample:
    device_type: str
    node: str
    resource: str
    devices: int


def capacity_samples(resources: Mapping[str, str], nodes: Iterable[NodeResources]) -> list[CapacitySample]:
    """One sample per node advertising the resource key of an enabled type (`resources`: key -> type)."""
    found: list[CapacitySample] = []
    for node in nodes:
        for resource, device_type in resources.items():
            count = node.capacity_of(resource)
            if count is not None:
                found.append(CapacitySample(device_type, node.name, resource, count))
    return found
