"""The objects a lab is made of, built as plain JSON from a checked request (no I/O here).

Two shapes: with the Kubeflow Notebook CRD a `Notebook` (the controller makes the StatefulSet and the
Service, `NB_PREFIX=/notebook/<ns>/<name>`) beside the claim for its home; without it NuFi makes
the StatefulSet (one replica), the Service and the claim itself, serving at `/labs/<project>/<name>/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nufi.workloads.accelerators import Placement
from nufi.workloads.labels import workload_labels, workload_selector
from nufi.workloads.labs.model import (
    SERVICE_PORT,
    Backend,
    KindProfile,
    LabKind,
    notebook_prefix,
    statefulset_prefix,
)

Obj = dict[str, Any]
# The annotations NuFi reads a lab back from.
LAB_KIND_ANNOTATION = "nufi.io/lab-kind"
STORAGE_ANNOTATION = "nufi.io/storage-gib"
# The Kubeflow controller's stop switch (its value: when it was stopped) and its rewrite of the path
# a notebook is served at (code-server serves at `/`).
STOPPED_ANNOTATION = "kubeflow-resource-stopped"
REWRITE_ANNOTATION = "notebooks.kubeflow.org/http-rewrite-uri"
CONTAINER_PORT_NAME = "notebook-port"
HOME_VOLUME = "home"


@dataclass(frozen=True)
class LabPlan:
    """Everything needed to build a lab's objects."""

    project: str
    name: str
    kind: LabKind
    image: str
    storage_gib: int
    placement: Placement
    profile: KindProfile
    origin: str | None = None  # where browsers open the lab (nufi.workloads.labs.origin)

    @property
    def labels(self) -> dict[str, str]:
        return workload_labels(self.project, self.name, "lab", self.placement.device_type)

    @property
    def annotations(self) -> dict[str, str]:
        return {LAB_KIND_ANNOTATION: self.kind, STORAGE_ANNOTATION: str(self.storage_gib)}

    @property
    def claim_name(self) -> str:
        return f"{self.name}-home"

    def prefix(self, backend: Backend) -> str:
        if backend == "notebook":
            return notebook_prefix(self.project, self.name)
        return statefulset_prefix(self.project, self.name)


def lab_object(plan: LabPlan, api_version: str, kind: str, spec: Obj, **metadata: object) -> Obj:
    """One of the lab's objects, wearing its labels, and its name and annotations (those NuFi reads it
    back from) unless `metadata` gives others."""
    head = {"name": plan.name, "labels": plan.labels, "annotations": plan.annotations} | metadata
    return {"apiVersion": api_version, "kind": kind, "metadata": head, "spec": spec}


def claim(plan: LabPlan) -> Obj:
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": f"{plan.storage_gib}Gi"}}}
    return lab_object(plan, "v1", "PersistentVolumeClaim", spec, name=plan.claim_name)


def service(plan: LabPlan) -> Obj:
    port = {
        "name": f"http-{plan.name}",
        "port": SERVICE_PORT,
        "targetPort": CONTAINER_PORT_NAME,
        "protocol": "TCP",
    }
    spec = {"type": "ClusterIP", "selector": workload_selector(plan.name, "lab"), "ports": [port]}
    return lab_object(plan, "v1", "Service", spec)


def statefulset(plan: LabPlan) -> Obj:
    spec = {
        "replicas": 1,
        "serviceName": plan.name,
        "selector": {"matchLabels": workload_selector(plan.name, "lab")},
        "template": {
            "metadata": {"labels": plan.labels, "annotations": plan.annotations},
            "spec": pod_spec(plan, "statefulset"),
        },
    }
    return lab_object(plan, "apps/v1", "StatefulSet", spec)


def notebook(plan: LabPlan) -> Obj:
    annotations = dict(plan.annotations)
    if not plan.profile.serves_prefix:
        annotations[REWRITE_ANNOTATION] = "/"
    # The controller copies the Notebook's labels onto the pod and sets NB_PREFIX itself.
    spec = {"template": {"spec": pod_spec(plan, "notebook")}}
    return lab_object(plan, "kubeflow.org/v1", "Notebook", spec, annotations=annotations)


def pod_spec(plan: LabPlan, backend: Backend) -> Obj:
    profile = plan.profile
    placement = plan.placement
    devices = {placement.resource_key: str(placement.count)}
    container: Obj = {
        # The Notebook controller reads the state of the container named like the notebook.
        "name": plan.name,
        "image": plan.image,
        "args": profile.args(plan.origin),
        "ports": [{"name": CONTAINER_PORT_NAME, "containerPort": profile.port, "protocol": "TCP"}],
        "workingDir": profile.home,
        # Extended resources take no overcommit: requests equal to limits.
        "resources": {"limits": dict(devices), "requests": dict(devices)},
        "volumeMounts": [{"name": HOME_VOLUME, "mountPath": profile.home}],
        "readinessProbe": {
            "httpGet": {"path": health_path(plan, backend), "port": CONTAINER_PORT_NAME},
            "periodSeconds": 5,
            "failureThreshold": 3,
        },
    }
    env = [{"name": name, "value": value} for name, value in profile.env]
    if backend == "statefulset":
        env.append({"name": "NB_PREFIX", "value": plan.prefix(backend)})
    if env:
        container["env"] = env
    spec: Obj = {
        "containers": [container],
        "securityContext": {"fsGroup": profile.fs_group},
        "volumes": [{"name": HOME_VOLUME, "persistentVolumeClaim": {"claimName": plan.claim_name}}],
    }
    if placement.node_selector:
        spec["nodeSelector"] = dict(placement.node_selector)
    if placement.tolerations:
        spec["tolerations"] = [dict(t) for t in placement.tolerations]
    return spec


def health_path(plan: LabPlan, backend: Backend) -> str:
    profile = plan.profile
    if profile.serves_prefix:
        return plan.prefix(backend) + profile.health_path
    return "/" + profile.health_path
