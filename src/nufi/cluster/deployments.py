"""apps/v1 Deployments, the Services in front of them, and the pods they run (lists: namespace None
means every namespace), through `objects.KubeObjects`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import Json
from nufi.cluster.objects import POD, SERVICE, Kind, KubeObjects

DEPLOYMENT = Kind("apps/v1", "Deployment", "deployments")


async def create_deployment(cluster: ClusterGateway, namespace: str, body: Mapping[str, Any]) -> Json:
    return await KubeObjects(cluster).create(DEPLOYMENT, namespace, body)


async def get_deployment(cluster: ClusterGateway, namespace: str, name: str) -> Json | None:
    return await KubeObjects(cluster).get(DEPLOYMENT, namespace, name)


async def list_deployments(
    cluster: ClusterGateway, namespace: str | None, *, label_selector: str
) -> list[Json]:
    return await KubeObjects(cluster).list(DEPLOYMENT, namespace, label_selector=label_selector)


async def scale_deployment(cluster: ClusterGateway, namespace: str, name: str, replicas: int) -> Json:
    """A merge patch of spec.replicas (KubeRefused 404 when the Deployment is gone)."""
    patch = {"spec": {"replicas": replicas}}
    return await KubeObjects(cluster).merge_patch(DEPLOYMENT, namespace, name, patch)


async def annotate_deployment(
    cluster: ClusterGateway, namespace: str, name: str, annotations: Mapping[str, str | None]
) -> Json:
    """A merge patch of metadata.annotations (None removes one); KubeRefused 404 when it is gone."""
    patch = {"metadata": {"annotations": dict(annotations)}}
    return await KubeObjects(cluster).merge_patch(DEPLOYMENT, namespace, name, patch)


async def delete_deployment(cluster: ClusterGateway, namespace: str, name: str) -> bool:
    """Delete it with its ReplicaSets and pods (background propagation); False when absent."""
    return await KubeObjects(cluster).delete(DEPLOYMENT, namespace, name)


async def create_service(cluster: ClusterGateway, namespace: str, body: Mapping[str, Any]) -> Json:
    return await KubeObjects(cluster).create(SERVICE, namespace, body)


async def get_service(cluster: ClusterGateway, namespace: str, name: str) -> Json | None:
    return await KubeObjects(cluster).get(SERVICE, namespace, name)


async def delete_service(cluster: ClusterGateway, namespace: str, name: str) -> bool:
    return await KubeObjects(cluster).delete(SERVICE, namespace, name)


async def list_pods(cluster: ClusterGateway, namespace: str | None, *, label_selector: str) -> list[Json]:
    return await KubeObjects(cluster).list(POD, namespace, label_selector=label_selector)
