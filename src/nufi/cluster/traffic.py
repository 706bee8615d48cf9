"""What traffic control writes to the cluster: a pod's labels and annotations, a node's taint, Events."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import MERGE_PATCH, Json, KubeRefused, api_path, list_items, request_json

EVENT_COMPONENT = "nufi-thermal"
_CONFLICT_RETRIES = 5


async def set_pod_traffic(
    cluster: ClusterGateway,
    namespace: str,
    name: str,
    *,
    labels: Mapping[str, str],
    annotations: Mapping[str, str | None],
) -> None:
    """A merge patch of a pod's labels and annotations (None removes an annotation); a pod that is gone
    is left alone (it no longer receives traffic anyway)."""
    try:
        await request_json(
            cluster,
            "PATCH",
            api_path("v1", "pods", namespace, name),
            body={"metadata": {"labels": dict(labels), "annotations": dict(annotations)}},
            content_type=MERGE_PATCH,
        )
    except KubeRefused as exc:
        if exc.status != 404:
            raise


async def node_taints(cluster: ClusterGateway) -> dict[str, list[Json]]:
    """Every node's taints."""
    nodes = await list_items(cluster, api_path("v1", "nodes"))
    return {
        (node.get("metadata") or {}).get("name", ""): list((node.get("spec") or {}).get("taints") or [])
        for node in nodes
    }


async def set_node_taint(
    cluster: ClusterGateway, node: str, *, key: str, value: str, effect: str, present: bool
) -> bool:
    """Add (or remove) one taint, keeping the node's others; a read-modify-write guarded by the node's
    resourceVersion, retried on conflict. True when it changed the node."""
    path = api_path("v1", "nodes", None, node)
    for _ in range(_CONFLICT_RETRIES):
        try:
            current = await request_json(cluster, "GET", path)
        except KubeRefused as exc:
            if exc.status == 404:
                return False
            raise
        spec = current.get("spec") or {}
        taints = list(spec.get("taints") or [])
        others = [t for t in taints if not (t.get("key") == key and t.get("effect") == effect)]
        wanted = [*others, {"key": key, "value": value, "effect": effect}] if present else others
        if [_shape(t) for t in wanted] == [_shape(t) for t in taints]:
            return False
        body = {
            "metadata": {"resourceVersion": (current.get("metadata") or {}).get("resourceVersion")},
            "spec": {"taints": wanted},
        }
        try:
            await request_json(cluster, "PATCH", path, body=body, content_type=MERGE_PATCH)
        except KubeRefused as exc:
            if exc.status == 409:
                continue
            raise
        return True
    return False


def _shape(taint: Mapping[str, Any]) -> tuple[Any, ...]:
    return (taint.get("key"), taint.get("value"), taint.get("effect"))


async def record_event(
    cluster: ClusterGateway,
    *,
    namespace: str,
    kind: str,
    name: str,
    uid: str | None,
    reason: str,
    message: str,
    type_: Literal["Normal", "Warning"],
    instance: str,
) -> None:
    """A core/v1 Event about one object (a Node's go to namespace `default`, as the kubelet's do),
    reported by `instance` (the replica that acted)."""
    now = datetime.now(UTC)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    involved: dict[str, Any] = {"apiVersion": "v1", "kind": kind, "name": name}
    if kind != "Node":
        involved["namespace"] = namespace
    if uid:
        involved["uid"] = uid
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.{secrets.token_hex(8)}", "namespace": namespace},
        "involvedObject": involved,
        "reason": reason,
        "message": message[:1024],
        "type": type_,
        "source": {"component": EVENT_COMPONENT},
        "reportingComponent": EVENT_COMPONENT,
        "reportingInstance": instance,
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "action": reason,
        "count": 1,
    }
    await request_json(cluster, "POST", api_path("v1", "events", namespace), body=body)
