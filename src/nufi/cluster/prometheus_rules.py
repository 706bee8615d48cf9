"""PrometheusRule objects (`monitoring.coreos.com/v1`, the Prometheus Operator's), as plain JSON.

A PrometheusRule is a custom resource: it takes JSON merge patches, never strategic-merge ones.
"""

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

GROUP_VERSION = "monitoring.coreos.com/v1"
KIND = "PrometheusRule"
PLURAL = "prometheusrules"


class PrometheusRules:
    def __init__(self, cluster: ClusterGateway) -> None:
        self._cluster = cluster

    @property
    def configured(self) -> bool:
        return self._cluster.configured

    async def served(self) -> bool:
        """Whether the cluster serves PrometheusRules, asked of discovery, which every authenticated
        client may read (the CustomResourceDefinition itself takes a cluster-wide permission)."""
        group = await get_or_none(self._cluster, f"/apis/{GROUP_VERSION}")
        resources = (group or {}).get("resources") or []
        return any(isinstance(r, dict) and r.get("name") == PLURAL for r in resources)

    async def list(self, namespace: str, *, label_selector: str) -> list[Json]:
        return await list_items(
            self._cluster, _path(namespace), label_selector=label_selector, missing_ok=True
        )

    async def create(self, namespace: str, name: str, labels: Mapping[str, str], spec: Json) -> Json:
        body: dict[str, Any] = {
            "apiVersion": GROUP_VERSION,
            "kind": KIND,
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
            "spec": spec,
        }
        return await request_json(self._cluster, "POST", _path(namespace), body=body)

    async def update(
        self, namespace: str, name: str, labels: Mapping[str, str], spec: Json, *, resource_version: str
    ) -> Json:
        """Replace the labels and the spec, refused (409) when the object changed since
        `resource_version`: two writers never interleave half of each."""
        patch = {"metadata": {"labels": dict(labels), "resourceVersion": resource_version}, "spec": spec}
        return await request_json(
            self._cluster, "PATCH", _path(namespace, name), body=patch, content_type=MERGE_PATCH
        )

    async def delete(self, namespace: str, name: str) -> bool:
        return await delete_or_absent(self._cluster, _path(namespace, name))


def _path(namespace: str, name: str | None = None) -> str:
    return api_path(GROUP_VERSION, PLURAL, namespace, name)
