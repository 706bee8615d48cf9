"""Reading a deployment back from its Kubernetes objects: whether an object is NuFi's, what the
audit records of a deployment say (its summary), and whether an annotation change took (no I/O)."""

from __future__ import annotations

from typing import Any

from nufi.cluster.kube_rest import Json
from nufi.db.intents import Intent
from nufi.workloads.deployments.spec import PORT_NAME
from nufi.workloads.intents import Outcome
from nufi.workloads.labels import DEVICE_TYPE, MANAGED_BY, MANAGED_BY_NUFI, WORKLOAD_KIND

KIND = "deployment"


def annotation_outcome(intent: Intent, deployment: Json | None) -> Outcome:
    """An annotation change (a thermal override): complete when the Deployment carries the value the
    intent planned (`after`'s `value` under the annotation its `details` name)."""
    annotation = str((intent.details or {}).get("annotation") or "")
    if deployment is None or not annotation:
        return Outcome.nothing()
    annotations = (deployment.get("metadata") or {}).get("annotations") or {}
    if annotations.get(annotation) == (intent.after or {}).get("value"):
        return Outcome.complete(intent.after)
    return Outcome.nothing()


def target_id(project: str, name: str) -> str:
    return f"{project}/{name}"


def summary(name: str, image: str, device_type: str, count: int) -> dict[str, Any]:
    return {"name": name, "image": image, "device_type": device_type, "count": count}


def summary_of(deployment: Json) -> dict[str, Any]:
    spec = deployment.get("spec") or {}
    container = first_container(spec)
    labels = (deployment.get("metadata") or {}).get("labels") or {}
    _, count = accelerator_of((container.get("resources") or {}).get("limits") or {})
    found = summary(
        object_name(deployment), str(container.get("image") or ""), str(labels.get(DEVICE_TYPE) or ""), count
    )
    return found | {"replicas": int(spec.get("replicas", 1) or 0), "port": port_of(container)}


def is_ours(obj: Json) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return bool(labels.get(MANAGED_BY) == MANAGED_BY_NUFI and labels.get(WORKLOAD_KIND) == KIND)


def object_name(obj: Json) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def first_container(spec: dict[str, Any]) -> dict[str, Any]:
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or [{}]
    first: dict[str, Any] = containers[0]
    return first


def accelerator_of(limits: dict[str, Any]) -> tuple[str, int]:
    for key, text in limits.items():
        if "/" in key:
            try:
                return key, int(str(text))
            except ValueError:
                continue
    return "", 0


def port_of(container: dict[str, Any]) -> int:
    for port in container.get("ports") or []:
        if port.get("name") == PORT_NAME:
            return int(port.get("containerPort") or 0)
    return 0
