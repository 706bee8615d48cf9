"""The Kubernetes objects a lab is made of: a StatefulSet, its Service and claim, or a Kubeflow Notebook.

Plain JSON through `objects.KubeObjects`; a refusal comes back as `KubeRefused` for the domain's one
apply (`workload_apply`) to word.
"""

from __future__ import annotations

from nufi.cluster.kube_rest import Json
from nufi.cluster.objects import POD, SERVICE, Kind, KubeObjects

NOTEBOOK_CRD = "notebooks.kubeflow.org"

STATEFULSET = Kind("apps/v1", "StatefulSet", "statefulsets")
CLAIM = Kind("v1", "PersistentVolumeClaim", "persistentvolumeclaims")
NOTEBOOK = Kind("kubeflow.org/v1", "Notebook", "notebooks")
LAB_KINDS = (NOTEBOOK, STATEFULSET, SERVICE, CLAIM)

__all__ = ["CLAIM", "LAB_KINDS", "NOTEBOOK", "POD", "SERVICE", "STATEFULSET", "LabObjects"]


class LabObjects(KubeObjects):
    async def notebooks_served(self) -> bool:
        """Whether the cluster serves Kubeflow Notebooks (the CRD notebooks.kubeflow.org exists)."""
        return await self.served(NOTEBOOK)

    async def list(
        self, kind: Kind, namespace: str | None, *, label_selector: str | None = None, missing_ok: bool = True
    ) -> list[Json]:
        # A custom type whose definition is absent (or a namespace gone) has nothing to list.
        return await super().list(kind, namespace, label_selector=label_selector, missing_ok=missing_ok)
