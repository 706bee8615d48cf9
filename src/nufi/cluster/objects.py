"""Namespaced Kubernetes objects of any kind, as plain JSON: a `Kind` names the resource type once.

A refusal comes back as `KubeRefused`, for `workload_apply` (or the caller's own gateway) to word.
Custom resources take no strategic-merge patch: objects are changed with JSON merge patches
(RFC 7386), which every kind takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Kind:
    """A namespaced resource type: its group/version, kind and plural."""

    group_version: str  # "v1", "apps/v1", "kubeflow.org/v1"
    kind: str
    plural: str

    def path(self, namespace: str | None, name: str | None = None) -> str:
        return api_path(self.group_version, self.plural, namespace, name)


# Core kinds every workload has.
SERVICE = Kind("v1", "Service", "services")
POD = Kind("v1", "Pod", "pods")


class KubeObjects:
    """Create, read, list, merge-patch and delete objects of any `Kind` (lists: namespace None means
    every namespace)."""

    def __init__(self, cluster: ClusterGateway) -> None:
        self._cluster = cluster

    async def served(self, kind: Kind) -> bool:
        """Whether the cluster serves `kind`, asked of discovery (`/apis/<group>/<version>`), which every
        authenticated client may read, not of its CustomResourceDefinition, which would take a
        cluster-wide permission."""
        group = await get_or_none(self._cluster, f"/apis/{kind.group_version}")
        resources = (group or {}).get("resources") or []
        return any(isinstance(r, dict) and r.get("name") == kind.plural for r in resources)

    async def create(self, kind: Kind, namespace: str, body: Mapping[str, Any]) -> Json:
        return await request_json(self._cluster, "POST", kind.path(namespace), body=body)

    async def get(self, kind: Kind, namespace: str, name: str) -> Json | None:
        return await get_or_none(self._cluster, kind.path(namespace, name))

    async def list(
        self,
        kind: Kind,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        missing_ok: bool = False,
    ) -> list[Json]:
        """`missing_ok`: a custom type whose definition is absent (or a namespace gone) lists nothing."""
        return await list_items(
            self._cluster, kind.path(namespace), label_selector=label_selector, missing_ok=missing_ok
        )

    async def merge_patch(self, kind: Kind, namespace: str, name: str, patch: Mapping[str, Any]) -> Json:
        """KubeRefused 404 when the object is gone."""
        return await request_json(
            self._cluster, "PATCH", kind.path(namespace, name), body=patch, content_type=MERGE_PATCH
        )

    async def delete(self, kind: Kind, namespace: str, name: str) -> bool:
        """Delete the object, and in the background what it owns; False when it was not there."""
        return await delete_or_absent(self._cluster, kind.path(namespace, name))
