"""Nodes and the pods bound to them, listed the way an inventory needs them.

Both lists go the one road (`kube_rest.list_collection`): paginated with `limit`/`continue`, restarted
when a continue token expires, and bounded as a whole by NUFI_KUBE_TIMEOUT_SECONDS. Responses stay
plain JSON: turning every page into client model objects costs far more than the fields used here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import PAGE_SIZE, api_path, list_collection
from nufi.cluster.resources import effective_requests, quantity_to_int

__all__ = [
    "BOUND_LIVE_PODS",
    "PAGE_SIZE",
    "TERMINAL_PHASES",
    "BoundPod",
    "NodeResources",
    "bound_pod",
    "list_bound_pods",
    "list_nodes",
    "list_raw",
    "node_resources",
]

# Pods that still hold devices: bound to a node and not finished. Terminating pods are kept on
# purpose, since the scheduler counts their resources until they are gone.
BOUND_LIVE_PODS = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"
TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


@dataclass(frozen=True)
class NodeResources:
    """A node's name with its `status.capacity` and `status.allocatable` quantities, as strings, and
    its labels."""

    name: str
    capacity: Mapping[str, str]
    allocatable: Mapping[str, str]
    labels: Mapping[str, str] = field(default_factory=dict)

    def capacity_of(self, resource: str) -> int | None:
        """How many of `resource` the node has, or None when it does not advertise it."""
        text = self.capacity.get(resource)
        return None if text is None else quantity_to_int(text)

    def allocatable_of(self, resource: str) -> int | None:
        text = self.allocatable.get(resource)
        return None if text is None else quantity_to_int(text)


@dataclass(frozen=True)
class BoundPod:
    """A pod bound to a node and not finished, with what it requests of each extended resource."""

    namespace: str
    name: str
    node: str
    phase: str
    extended_requests: Mapping[str, int]


async def list_nodes(cluster: ClusterGateway, *, page_size: int = PAGE_SIZE) -> list[NodeResources]:
    """Every node in the cluster with its capacity and allocatable."""
    items, _ = await list_raw(cluster, "nodes", page_size=page_size)
    return [node_resources(item) for item in items]


async def list_bound_pods(cluster: ClusterGateway, *, page_size: int = PAGE_SIZE) -> list[BoundPod]:
    """Every pod in every namespace that is bound to a node and neither Succeeded nor Failed."""
    items, _ = await list_raw(cluster, "pods", page_size=page_size, field_selector=BOUND_LIVE_PODS)
    pods = []
    for item in items:
        pod = bound_pod(item)
        # A server that ignores part of the field selector must not make finished pods count.
        if pod.node and pod.phase not in TERMINAL_PHASES:
            pods.append(pod)
    return pods


def node_resources(item: Mapping[str, Any]) -> NodeResources:
    """The fields NuFi reads of a node object, decoded from its JSON."""
    status = item.get("status") or {}
    metadata = item.get("metadata") or {}
    return NodeResources(
        name=str(metadata.get("name") or ""),
        capacity=dict(status.get("capacity") or {}),
        allocatable=dict(status.get("allocatable") or {}),
        labels=dict(metadata.get("labels") or {}),
    )


def bound_pod(item: Mapping[str, Any]) -> BoundPod:
    metadata = item.get("metadata") or {}
    spec = item.get("spec") or {}
    return BoundPod(
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        node=str(spec.get("nodeName") or ""),
        phase=str((item.get("status") or {}).get("phase") or ""),
        extended_requests=effective_requests(spec),
    )


async def list_raw(
    cluster: ClusterGateway, plural: str, *, page_size: int = PAGE_SIZE, field_selector: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """Every object of `plural` ("nodes" or "pods", every namespace) as JSON, with the list's
    resourceVersion (the one a watch continues from)."""
    listed = await list_collection(
        cluster, api_path("v1", plural), page_size=page_size, field_selector=field_selector
    )
    return listed.items, listed.resource_version
