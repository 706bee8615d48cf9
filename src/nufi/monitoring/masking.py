"""What a non-admin sees of other projects' workloads in monitoring: that a device is in use, not by whom.

Monitoring shows every device of a type, whoever holds it. Pods in a project the reader is not a
member of are shown as "another project" (pod and namespace alike); pods in the reader's own
projects, and in namespaces that are no project (system pods, exporters), keep their names. Who
may see what is not monitoring's to decide: a `NamespaceVisibility` (the projects service, wired in
services.py) answers it per reader. Masking happens on the snapshot before it is paged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Protocol

from nufi.auth import Principal
from nufi.monitoring.attribution import PodHolding
from nufi.monitoring.snapshot import DeviceEntry, NodeEntry, Snapshot

ANOTHER_PROJECT = "another project"

Hidden = Callable[[str | None], bool]


class NamespaceVisibility(Protocol):
    async def hidden_namespaces(self, principal: Principal | None) -> frozenset[str]:
        """The namespaces whose pod and namespace names `principal` may not see (empty: none)."""
        ...


def hide_all(namespace: str | None) -> bool:
    """When who may see what cannot be known: every pod with a name is hidden."""
    return True


def mask_snapshot(snapshot: Snapshot, hidden: Hidden) -> Snapshot:
    """`snapshot` with the pods and namespaces `hidden` says named "another project"."""
    return dataclasses.replace(snapshot, nodes=tuple(_node(node, hidden) for node in snapshot.nodes))


def _node(node: NodeEntry, hidden: Hidden) -> NodeEntry:
    pods = None if node.pods is None else tuple(_holding(pod, hidden) for pod in node.pods)
    workload = node.workload
    if node.pods is not None and len(node.pods) == 1 and hidden(node.pods[0].namespace):
        workload = ANOTHER_PROJECT
    return dataclasses.replace(
        node, pods=pods, workload=workload, devices=tuple(_device(d, hidden) for d in node.devices)
    )


def _holding(pod: PodHolding, hidden: Hidden) -> PodHolding:
    return PodHolding(ANOTHER_PROJECT, ANOTHER_PROJECT, pod.devices) if hidden(pod.namespace) else pod


def _device(device: DeviceEntry, hidden: Hidden) -> DeviceEntry:
    if device.pod is None and device.namespace is None:
        return device
    if not hidden(device.namespace):
        return device
    return dataclasses.replace(device, pod=ANOTHER_PROJECT, namespace=ANOTHER_PROJECT)
