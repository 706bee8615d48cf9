"""The device manager's checkpoint file, shaped like the kubelet's ``kubelet_internal_checkpoint``.

It is written after every change so that a look into the device plugin dir shows what the kubelet would
have persisted; nothing reads it back, because the simulated kubelet keeps its memory across restarts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from .model import ContainerAllocation

# The kubelet groups allocated device ids by NUMA node and uses -1 for devices without topology.
_NO_TOPOLOGY = -1


def checkpoint_document(
    allocations: Iterable[ContainerAllocation], registered: Mapping[str, Iterable[str]]
) -> dict[str, object]:
    entries = [
        {
            "PodUID": allocation.pod_uid,
            "ContainerName": allocation.container,
            "ResourceName": allocation.resource,
            "DeviceIDs": _by_numa_node(allocation),
        }
        for allocation in allocations
    ]
    return {
        "Data": {
            "PodDeviceEntries": entries,
            "RegisteredDevices": {resource: sorted(ids) for resource, ids in sorted(registered.items())},
        }
    }


def write_checkpoint(path: Path, document: Mapping[str, object]) -> None:
    """Replace the file atomically so a reader never sees half of it."""
    scratch = path.with_name(path.name + ".tmp")
    scratch.write_text(json.dumps(document, indent=2, sort_keys=True), encoding="utf-8")
    scratch.replace(path)


def _by_numa_node(allocation: ContainerAllocation) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for device_id in allocation.device_ids:
        for node in allocation.numa_nodes.get(device_id) or (_NO_TOPOLOGY,):
            grouped.setdefault(str(node), []).append(device_id)
    return grouped
