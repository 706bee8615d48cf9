"""Namespaces: read, list by label, create, replace (optimistic concurrency) and delete."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import Json, api_path, delete_or_absent, get_or_none, list_items, request_json


async def get_namespace(cluster: ClusterGateway, name: str) -> Json | None:
    return await get_or_none(cluster, api_path("v1", "namespaces", name=name))


async def list_namespaces(cluster: ClusterGateway, *, label_selector: str) -> list[Json]:
    return await list_items(cluster, api_path("v1", "namespaces"), label_selector=label_selector)


async def create_namespace(cluster: ClusterGateway, body: Mapping[str, Any]) -> Json:
    """Raises KubeRefused 409 when a namespace of that name exists."""
    return await request_json(cluster, "POST", api_path("v1", "namespaces"), body=body)


async def replace_namespace(cluster: ClusterGateway, name: str, body: Mapping[str, Any]) -> Json:
    """PUT the whole object; its metadata.resourceVersion makes a concurrent change a KubeRefused 409."""
    return await request_json(cluster, "PUT", api_path("v1", "namespaces", name=name), body=body)


async def delete_namespace(cluster: ClusterGateway, name: str) -> bool:
    """Delete a namespace and, with it, everything in it; False when it was not there."""
    return await delete_or_absent(cluster, api_path("v1", "namespaces", name=name))


async def list_in_namespace(
    cluster: ClusterGateway,
    group_version: str,
    plural: str,
    namespace: str,
    *,
    label_selector: str | None = None,
) -> list[Json]:
    """Every object of one kind in `namespace`; empty when the kind is not served (a custom resource
    whose definition is not installed)."""
    return await list_items(
        cluster,
        api_path(group_version, plural, namespace),
        label_selector=label_selector,
        missing_ok=True,
    )


async def create_role_binding(cluster: ClusterGateway, namespace: str, body: Mapping[str, Any]) -> Json:
    """Raises KubeRefused 409 when one of that name exists, 403 when NuFi may not bind the role."""
    return await request_json(
        cluster, "POST", api_path("rbac.authorization.k8s.io/v1", "rolebindings", namespace), body=body
    )
