"""One ConfigMap's data, read and changed key by key, as plain JSON."""

from __future__ import annotations

from collections.abc import Mapping

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import MERGE_PATCH, Json, api_path, get_or_none, request_json


class ConfigMaps:
    def __init__(self, cluster: ClusterGateway) -> None:
        self._cluster = cluster

    async def get(self, namespace: str, name: str) -> Json | None:
        return await get_or_none(self._cluster, api_path("v1", "configmaps", namespace, name))

    async def create(
        self, namespace: str, name: str, labels: Mapping[str, str], data: Mapping[str, str]
    ) -> Json:
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
            "data": dict(data),
        }
        return await request_json(self._cluster, "POST", api_path("v1", "configmaps", namespace), body=body)

    async def change_data(
        self, namespace: str, name: str, changes: Mapping[str, str | None], *, resource_version: str
    ) -> Json:
        """Set the keys of `changes` to their values and remove those whose value is None, leaving
        every other key as it is; refused (409) when the ConfigMap changed since `resource_version`."""
        patch = {"metadata": {"resourceVersion": resource_version}, "data": dict(changes)}
        return await request_json(
            self._cluster,
            "PATCH",
            api_path("v1", "configmaps", namespace, name),
            body=patch,
            content_type=MERGE_PATCH,
        )
