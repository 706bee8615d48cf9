"""ResourceQuotas: every quota of a namespace, one by name in every namespace at once, and NuFi's own
written or replaced."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import (
    Json,
    api_path,
    delete_or_absent,
    get_or_none,
    list_collection,
    list_items,
    request_json,
)


async def list_resource_quotas(cluster: ClusterGateway, namespace: str) -> list[Json]:
    """Every ResourceQuota of the namespace, whoever wrote it (admission counts them all)."""
    return await list_items(cluster, api_path("v1", "resourcequotas", namespace))


async def list_named_resource_quotas(
    cluster: ClusterGateway, name: str, *, label_selector: str
) -> list[Json]:
    """The quota called `name` of every namespace that has one and carries the labels: one cluster-wide
    list (read in pages), however many namespaces there are, instead of one read per namespace."""
    listed = await list_collection(
        cluster,
        api_path("v1", "resourcequotas"),
        label_selector=label_selector,
        field_selector=f"metadata.name={name}",
    )
    return listed.items


async def get_resource_quota(cluster: ClusterGateway, namespace: str, name: str) -> Json | None:
    return await get_or_none(cluster, api_path("v1", "resourcequotas", namespace, name))


async def create_resource_quota(cluster: ClusterGateway, namespace: str, body: Mapping[str, Any]) -> Json:
    """Raises KubeRefused 409 when a quota of that name exists."""
    return await request_json(cluster, "POST", api_path("v1", "resourcequotas", namespace), body=body)


async def replace_resource_quota(
    cluster: ClusterGateway, namespace: str, name: str, body: Mapping[str, Any]
) -> Json:
    """PUT the whole object; its metadata.resourceVersion makes a concurrent change a KubeRefused 409."""
    return await request_json(cluster, "PUT", api_path("v1", "resourcequotas", namespace, name), body=body)


async def delete_resource_quota(cluster: ClusterGateway, namespace: str, name: str) -> bool:
    """False when it was not there."""
    return await delete_or_absent(cluster, api_path("v1", "resourcequotas", namespace, name))
