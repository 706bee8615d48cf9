"""A lab's status, read from its top object (Notebook or StatefulSet) and its one pod."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nufi.workloads.labs.model import Backend, LabStatus

Obj = dict[str, Any]
# Container waiting reasons that will not fix themselves: the lab needs a new image or a fix.
_BROKEN_WAITING = frozenset(
    {
        "CrashLoopBackOff",
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    }
)
_STOPPED_ANNOTATION = "kubeflow-resource-stopped"


@dataclass(frozen=True)
class Observed:
    status: LabStatus
    # Pending: the scheduler's own words, for the caller to replace with the accelerator's.
    # Error: what broke.
    detail: str | None = None

    @property
    def unschedulable(self) -> bool:
        return self.status == "Pending"


def stopped(top: Obj, backend: Backend) -> bool:
    if backend == "notebook":
        return _STOPPED_ANNOTATION in ((top.get("metadata") or {}).get("annotations") or {})
    return int((top.get("spec") or {}).get("replicas", 1)) == 0


def observe(top: Obj, backend: Backend, pod: Obj | None) -> Observed:
    if stopped(top, backend):
        return Observed("Stopped")
    if pod is None or (pod.get("metadata") or {}).get("deletionTimestamp"):
        return Observed("Starting")
    status = pod.get("status") or {}
    conditions = {c.get("type"): c for c in status.get("conditions") or [] if isinstance(c, dict)}
    scheduled = conditions.get("PodScheduled")
    if (
        scheduled is not None
        and scheduled.get("status") == "False"
        and scheduled.get("reason") == "Unschedulable"
    ):
        return Observed("Pending", str(scheduled.get("message") or "the pod cannot be scheduled"))
    phase = status.get("phase")
    if phase in ("Failed", "Succeeded"):
        return Observed("Error", f"the lab's pod has {str(phase).lower()}: {status.get('message') or phase}")
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") in _BROKEN_WAITING:
            message = waiting.get("message") or ""
            return Observed("Error", f"{waiting['reason']}: {message}".rstrip(": "))
    ready = conditions.get("Ready")
    if phase == "Running" and ready is not None and ready.get("status") == "True":
        return Observed("Ready")
    return Observed("Starting")
