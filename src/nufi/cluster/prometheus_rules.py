"""PrometheusRule objects (`monitoring.coreos.com/v1`, the Prometheus Operator's), as plain JSON.

A PrometheusRule is a custom resource: it takes JSON merge patches, never strategic-merge ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import Json
from nufi.cluster.objects import Kind, KubeObjects

GROUP_VERSION = "monitoring.coreos.com/v1"
KIND = "PrometheusRule"
PLURAL = "prometheusrules"
_RULES = Kind(GROUP_VERSION, KIND, PLURAL)


class PrometheusRules:
    def __init__(self, cluster: ClusterGateway) -> None:
        self._cluster = cluster
        self._objects = KubeObjects(cluster)

    @property
    def configured(self) -> bool:
        return self._cluster.configured

    async def served(self) -> bool:
        """Whether the cluster serves PrometheusRules, asked of discovery, which every authenticated
        client may read (the CustomResourceDefinition itself takes a cluster-wide permission)."""
        return await self._objects.served(_RULES)

    async def list(self, namespace: str, *, label_selector: str) -> list[Json]:
        return await self._objects.list(_RULES, namespace, label_selector=label_selector, missing_ok=True)

    async def create(self, namespace: str, name: str, labels: Mapping[str, str], spec: Json) -> Json:
        body: dict[str, Any] = {
            "apiVersion": GROUP_VERSION,
            "kind": KIND,
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
            "spec": spec,
        }
        return await self._objects.create(_RULES, namespace, body)

    async def update(
        self, namespace: str, name: str, labels: Mapping[str, str], spec: Json, *, resource_version: str
    ) -> Json:
        """Replace the labels and the spec, refused (409) when the object changed since
        `resource_version`: two writers never interleave half of each."""
        patch = {"metadata": {"labels": dict(labels), "resourceVersion": resource_version}, "spec": spec}
        return await self._objects.merge_patch(_RULES, namespace, name, patch)

    async def delete(self, namespace: str, name: str) -> bool:
        return await self._objects.delete(_RULES, namespace, name)
