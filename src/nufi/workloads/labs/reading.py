"""Reading a lab back from its Kubernetes objects (no I/O): which objects are a lab's, its top
object with the backend it runs on, its kind, container, state and the summary its audit records keep."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nufi.cluster.kube_rest import Json
from nufi.workloads.labels import DEVICE_TYPE, MANAGED_BY, MANAGED_BY_NUFI, WORKLOAD, WORKLOAD_KIND
from nufi.workloads.labs.manifests import LAB_KIND_ANNOTATION, STOPPED_ANNOTATION
from nufi.workloads.labs.model import Backend, LabKind, notebook_prefix, statefulset_prefix


@dataclass(frozen=True)
class Found:
    """A lab's top object (its Notebook, or its StatefulSet) and the backend that makes it."""

    backend: Backend
    top: Json


def served_prefix(backend: Backend, project: str, name: str) -> str:
    return notebook_prefix(project, name) if backend == "notebook" else statefulset_prefix(project, name)


def lab_selector() -> str:
    return f"{MANAGED_BY}={MANAGED_BY_NUFI},{WORKLOAD_KIND}=lab"


def is_lab(obj: Json) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return (
        labels.get(MANAGED_BY) == MANAGED_BY_NUFI
        and labels.get(WORKLOAD_KIND) == "lab"
        and WORKLOAD in labels
    )


def is_running(found: Found) -> bool:
    meta = found.top.get("metadata") or {}
    if found.backend == "notebook":
        return STOPPED_ANNOTATION not in (meta.get("annotations") or {})
    return int((found.top.get("spec") or {}).get("replicas", 1) or 0) > 0


def summary(found: Found) -> dict[str, Any]:
    meta = found.top.get("metadata") or {}
    container = first_container(found.top, found.backend)
    return {
        "name": object_name(found.top),
        "kind": lab_kind(found.top),
        "image": str(container.get("image") or ""),
        "device_type": str((meta.get("labels") or {}).get(DEVICE_TYPE, "")),
        "backend": found.backend,
    }


def lab_kind(top: Json) -> LabKind:
    value = ((top.get("metadata") or {}).get("annotations") or {}).get(LAB_KIND_ANNOTATION)
    return "vscode" if value == "vscode" else "jupyter"


def first_container(top: Json, backend: Backend) -> Json:
    template = (top.get("spec") or {}).get("template") or {}
    containers = (template.get("spec") or {}).get("containers") or [{}]
    first: Json = containers[0]
    return first


def claim_name(name: str) -> str:
    return f"{name}-home"


def object_name(obj: Json) -> str:
    return str((obj.get("metadata") or {}).get("name"))


def as_int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0
