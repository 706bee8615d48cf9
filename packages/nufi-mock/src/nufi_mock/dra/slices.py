"""The node's LPUs as ResourceSlice objects (``resource.k8s.io/v1``), the way a DRA driver publishes them.

One pool per node, named after it, as node-local drivers do. A pool is complete when every slice of its
newest generation is there; the scheduler only allocates from complete pools at their newest generation,
so a change is published as a whole new generation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nufi_mock.inventory import MockDevice, device_uuid

from .config import DRIVER_NAME, LpuModel

Obj = dict[str, Any]

POOL_DEVICE_LIMIT = 128
"""The API server refuses a slice with more devices than this; a larger pool spans several slices."""

API_VERSION = "resource.k8s.io/v1"


def device_entry(node: str, device: MockDevice, model: LpuModel) -> Obj:
    """One device of a slice: its name, typed attributes and capacity."""
    return {
        "name": device.device_id,
        "attributes": {
            "model": {"string": model.name},
            "firmwareVersion": {"version": model.firmware_version},
            "numaNode": {"int": device.numa_node},
            "uuid": {"string": device_uuid(node, device.index)},
            "index": {"int": device.index},
        },
        "capacity": {"memory": {"value": model.memory}},
    }


def pool_slices(
    node: str, devices: Sequence[MockDevice], model: LpuModel, *, generation: int, node_uid: str | None = None
) -> list[Obj]:
    """The slices of the node's pool at ``generation``: every device given, in order, at most
    POOL_DEVICE_LIMIT per slice, and at least one slice even when no device is left (an empty pool
    still says the driver runs there)."""
    entries = [device_entry(node, device, model) for device in devices]
    chunks = [entries[i : i + POOL_DEVICE_LIMIT] for i in range(0, len(entries), POOL_DEVICE_LIMIT)] or [[]]
    metadata: Obj = {"generateName": f"{node}-{DRIVER_NAME}-"}
    if node_uid is not None:
        # Owned by the node, as upstream's controller does: the slices go when the node goes.
        metadata["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Node", "name": node, "uid": node_uid, "controller": True}
        ]
    return [
        {
            "apiVersion": API_VERSION,
            "kind": "ResourceSlice",
            "metadata": dict(metadata),
            "spec": {
                "driver": DRIVER_NAME,
                "nodeName": node,
                "pool": {"name": node, "generation": generation, "resourceSliceCount": len(chunks)},
                "devices": chunk,
            },
        }
        for chunk in chunks
    ]
