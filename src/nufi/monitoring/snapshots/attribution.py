"""Which workload uses a node's devices, from the cluster, where the exporter does not say.

The cluster knows which pods bound to a node hold how many devices of a resource key, but not which
devices: the device IDs the kubelet handed out are not in the pod object. So the rule is:

- a node's `pods` are the bound, unfinished pods holding the type's resource key there, and its
  `workload` is `<namespace>/<pod>` when exactly one pod holds devices there, `shared by N pods`
  when N > 1, and null when none does;
- a device's own pod and namespace come from the exporter's labels. Only when no device of the node
  carries them does the cluster fill them in, and only when that is certain: exactly one pod holds
  devices on the node and it holds at least as many as the node has (its capacity) and reports, so
  every device is that pod's. A pod holding 2 of 4 devices is named at node level only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nufi.cluster.inventory import BoundPod


@dataclass(frozen=True)
class PodHolding:
    """A pod bound to a node, and how many devices of the type it holds there."""

    namespace: str
    pod: str
    devices: int

    @property
    def name(self) -> str:
        return f"{self.namespace}/{self.pod}"


@dataclass(frozen=True)
class NodeAttribution:
    pods: tuple[PodHolding, ...]
    workload: str | None
    # The pod every device of the node belongs to, when the cluster makes that certain.
    device_owner: PodHolding | None


def holdings_by_node(pods: Iterable[BoundPod], resource_key: str) -> dict[str, tuple[PodHolding, ...]]:
    """The pods holding `resource_key`, per node, sorted by namespace and name."""
    found: dict[str, list[PodHolding]] = {}
    for pod in pods:
        amount = pod.extended_requests.get(resource_key, 0)
        if amount > 0:
            found.setdefault(pod.node, []).append(PodHolding(pod.namespace, pod.name, amount))
    return {
        node: tuple(sorted(holders, key=lambda h: (h.namespace, h.pod))) for node, holders in found.items()
    }


def attribute_node(
    holders: Iterable[PodHolding], *, capacity: int, reported_devices: int, exporter_attributes: bool
) -> NodeAttribution:
    """Apply the module's rule to one node."""
    pods = tuple(holders)
    if not pods:
        return NodeAttribution((), None, None)
    if len(pods) > 1:
        return NodeAttribution(pods, f"shared by {len(pods)} pods", None)
    only = pods[0]
    every_device = reported_devices > 0 and only.devices >= max(capacity, reported_devices)
    owner = only if every_device and not exporter_attributes else None
    return NodeAttribution(pods, only.name, owner)
