"""apps/v1 Deployments, the Services in front of them, and the pods they run (lists: namespace None
means every namespace)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import (
    MERGE_PATCH,
    Json,
    api_path,
    delete_or_absent,
    get_or_none,
    list_items,
    request_json,
)

_APPS = "apps/v1"


async def create_deployment(cluster: ClusterGateway, namespace: str, body: Mapping[str, Any]) -> Json:
    return await request_json(cluster, "POST", api_path(_APPS, "deployments", namespace), body=body)


async def get_deployment(cluster: ClusterGateway, namespace: str, name: str) -> Json | None:
    return await get_or_none(cluster, api_path(_APPS, "deployments", namespace, name))


async def list_deployments(
    cluster: ClusterGateway, namespace: str | None, *, label_selector: str
) -> list[Json]:
    return await list_items(cluster, api_path(_APPS, "deployments", namespace), label_selector=label_selector)


async def scale_deployment(cluster: ClusterGateway, namespace: str, name: str, replicas: int) -> Json:
    """A merge patch of spec.replicas (KubeRefused 404 when the Deployment is gone)."""
    return await request_json(
        cluster,
        "PATCH",
        api_path(_APPS, "deployments", namespace, name),
        body={"spec": {"replicas": replicas}},
        content_type=MERGE_PATCH,
    )


async def annotate_deployment(
    cluster: ClusterGateway, namespace: str, name: str, annotations: Mapping[str, str | None]
) -> Json:
    """A merge patch of metadata.annotations (None removes one); KubeRefused 404 when it is gone."""
    return await request_json(
        cluster,
        "PATCH",
        api_path(_APPS, "deployments", namespace, name),
        body={"metadata": {"annotations": dict(annotations)}},
        content_type=MERGE_PATCH,
    )


async def delete_deployment(cluster: ClusterGateway, namespace: str, name: str) -> bool:
    """Delete it with its ReplicaSets and pods (background propagation); False when absent."""
    return await delete_or_absent(cluster, api_path(_APPS, "deployments", namespace, name))


async def create_service(cluster: ClusterGateway, namespace: str, body: Mapping[str, Any]) -> Json:
    return await request_json(cluster, "POST", api_path("v1", "services", namespace), body=body)


async def get_service(cluster: ClusterGateway, namespace: str, name: str) -> Json | None:
    return await get_or_none(cluster, api_path("v1", "services", namespace, name))


async def delete_service(cluster: ClusterGateway, namespace: str, name: str) -> bool:
    return await delete_or_absent(cluster, api_path("v1", "services", namespace, name))


async def list_pods(cluster: ClusterGateway, namespace: str | None, *, label_selector: str) -> list[Json]:
    return await list_items(cluster, api_path("v1", "pods", namespace), label_selector=label_selector)
