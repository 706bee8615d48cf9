"""The Kubernetes objects a lab is made of: a StatefulSet, its Service and claim, or a Kubeflow Notebook.

Plain JSON through `kube_rest`; a refusal comes back as `KubeRefused` for the domain to word.
Notebooks are custom resources, which take no strategic-merge patch: they are changed with JSON
merge patches (RFC 7386), which every kind takes.
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

NOTEBOOK_CRD = "notebooks.kubeflow.org"


@dataclass(frozen=True)
class Kind:
    """A namespaced resource type: its group/version, kind and plural."""

    group_version: str  # "v1", "apps/v1", "kubeflow.org/v1"
    kind: str
    plural: str

    def path(self, namespace: str, name: str | None = None) -> str:
        return api_path(self.group_version, self.plural, namespace, name)


STATEFULSET = Kind("apps/v1", "StatefulSet", "statefulsets")
SERVICE = Kind("v1", "Service", "services")
CLAIM = Kind("v1", "PersistentVolumeClaim", "persistentvolumeclaims")
POD = Kind("v1", "Pod", "pods")
NOTEBOOK = Kind("kubeflow.org/v1", "Notebook", "notebooks")
LAB_KINDS = (NOTEBOOK, STATEFULSET, SERVICE, CLAIM)


class LabObjects:
    def __init__(self, cluster: ClusterGateway) -> None:
        self._cluster = cluster

    async def notebooks_served(self) -> bool:
        """Whether the cluster serves Kubeflow Notebooks (the CRD notebooks.kubeflow.org exists).

        Asked of discovery (`/apis/kubeflow.org/v1`), which every authenticated client may read, not
        of the CustomResourceDefinition itself, which would take a cluster-wide permission."""
        group = await get_or_none(self._cluster, f"/apis/{NOTEBOOK.group_version}")
        resources = (group or {}).get("resources") or []
        return any(isinstance(r, dict) and r.get("name") == NOTEBOOK.plural for r in resources)

    async def create(self, kind: Kind, namespace: str, body: Mapping[str, Any]) -> Json:
        return await request_json(self._cluster, "POST", kind.path(namespace), body=body)

    async def get(self, kind: Kind, namespace: str, name: str) -> Json | None:
        return await get_or_none(self._cluster, kind.path(namespace, name))

    async def list(self, kind: Kind, namespace: str, *, label_selector: str | None = None) -> list[Json]:
        # A custom type whose definition is absent (or a namespace gone) has nothing to list.
        return await list_items(
            self._cluster, kind.path(namespace), label_selector=label_selector, missing_ok=True
        )

    async def merge_patch(self, kind: Kind, namespace: str, name: str, patch: Mapping[str, Any]) -> Json:
        return await request_json(
            self._cluster, "PATCH", kind.path(namespace, name), body=patch, content_type=MERGE_PATCH
        )

    async def delete(self, kind: Kind, namespace: str, name: str) -> bool:
        """Delete the object, and in the background what it owns; False when it was not there."""
        return await delete_or_absent(self._cluster, kind.path(namespace, name))
