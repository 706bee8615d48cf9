"""What a non-admin sees of other projects' workloads in monitoring: that a device is in use, not by whom.

Monitoring shows every device of a type, whoever holds it. Pods in a project the reader is not a
member of are shown as "another project" (pod and namespace alike); pods in the reader's own
projects, and in namespaces that are no project (system pods, exporters), keep their names. Who
may see what is not monitoring's to decide: a `NamespaceVisibility` (the projects service, wired in
services.py) answers it per reader. Masking happens on the snapshot before it is paged.

Masking goes by what is known. A type may map its exporter's `pod` label but not `namespace`, so a
device can name a pod without saying whose it is. Its namespace is then taken from the cluster's pods
bound to the node, when exactly one of them has that name; otherwise it is unknown, and a pod of an
unknown namespace is hidden from every reader who may not see some project.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Set
from typing import Protocol

from nufi.auth import Principal
from nufi.monitoring.snapshots.attribution import PodHolding
from nufi.monitoring.snapshots.snapshot import DeviceEntry, NodeEntry, Snapshot

ANOTHER_PROJECT = "another project"

Hidden = Callable[[str | None], bool]


class NamespaceVisibility(Protocol):
    async def hidden_namespaces(self, principal: Principal | None) -> frozenset[str]:
        """The namespaces whose pod and namespace names `principal` may not see (empty: none)."""
        ...


def hide_all(namespace: str | None) -> bool:
    """When who may see what cannot be known: every pod with a name is hidden."""
    return True


def hidden_in(namespaces: Set[str]) -> Hidden:
    """Hidden for a reader who may not see `namespaces`: a pod in one of them, and a pod whose
    namespace is unknown (None), which may be in one of them. Nothing when `namespaces` is empty."""
    if not namespaces:
        return lambda namespace: False
    return lambda namespace: namespace is None or namespace in namespaces


def mask_snapshot(snapshot: Snapshot, hidden: Hidden) -> Snapshot:
    """`snapshot` with the pods and namespaces `hidden` says named "another project"."""
    return dataclasses.replace(snapshot, nodes=tuple(_node(node, hidden) for node in snapshot.nodes))


def _node(node: NodeEntry, hidden: Hidden) -> NodeEntry:
    pods = None if node.pods is None else tuple(_holding(pod, hidden) for pod in node.pods)
    workload = node.workload
    if node.pods is not None and len(node.pods) == 1 and hidden(node.pods[0].namespace):
        workload = ANOTHER_PROJECT
    return dataclasses.replace(
        node, pods=pods, workload=workload, devices=tuple(_device(d, node, hidden) for d in node.devices)
    )


def _holding(pod: PodHolding, hidden: Hidden) -> PodHolding:
    return PodHolding(ANOTHER_PROJECT, ANOTHER_PROJECT, pod.devices) if hidden(pod.namespace) else pod


def _device(device: DeviceEntry, node: NodeEntry, hidden: Hidden) -> DeviceEntry:
    if device.pod is None and device.namespace is None:
        return device
    namespace = device.namespace
    if namespace is None:
        namespace = _namespace_on_node(device.pod, node)
    if not hidden(namespace):
        return device
    return dataclasses.replace(device, pod=ANOTHER_PROJECT, namespace=ANOTHER_PROJECT)


def _namespace_on_node(pod: str | None, node: NodeEntry) -> str | None:
    """The namespace of the one pod named `pod` that the cluster binds to `node`; None when no pod
    or more than one (in different namespaces) has that name there."""
    namespaces = {p.namespace for p in node.pods or () if p.pod == pod}
    return namespaces.pop() if len(namespaces) == 1 else None
