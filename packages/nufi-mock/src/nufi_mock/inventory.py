"""The mock devices of one node: ids, indexes and NUMA placement, shared by the plugin and the exporter."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

DEVICE_PREFIX = "lpu"
"""Device ids are ``lpu0``, ``lpu1``, ...; the same ids name the device files ``/dev/lpu<N>``."""

_DEVICE_ID = re.compile(rf"^{DEVICE_PREFIX}(0|[1-9][0-9]*)$")


@dataclass(frozen=True)
class MockDevice:
    index: int
    numa_node: int

    @property
    def device_id(self) -> str:
        return f"{DEVICE_PREFIX}{self.index}"

    @property
    def device_path(self) -> str:
        return f"/dev/{self.device_id}"


def numa_node_of(index: int, count: int, numa_nodes: int) -> int:
    """Devices fill NUMA nodes in order, in blocks as equal as possible (4 on 2 nodes: 0,0,1,1)."""
    if count < 1 or numa_nodes < 1:
        raise ValueError("count and numa_nodes must be at least 1")
    return index * min(numa_nodes, count) // count


def mock_devices(count: int, numa_nodes: int = 2) -> list[MockDevice]:
    if count < 1:
        raise ValueError(f"a node needs at least 1 device, got {count}")
    if numa_nodes < 1:
        raise ValueError(f"a node needs at least 1 NUMA node, got {numa_nodes}")
    return [MockDevice(i, numa_node_of(i, count, numa_nodes)) for i in range(count)]


def device_index(device_id: str) -> int | None:
    """The index in ``lpu<N>``, or None when the text is not a mock device id."""
    match = _DEVICE_ID.match(device_id)
    return int(match.group(1)) if match else None


def device_uuid(node: str, index: int) -> str:
    """The device's UUID: stable per node and index, so the exporter and the DRA driver name it alike."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"nufi-mock://{node}/{index}"))
