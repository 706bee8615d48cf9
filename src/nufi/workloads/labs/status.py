"""A lab's status, read from its top object (Notebook or StatefulSet) and its one pod."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nufi.messages import Message
from nufi.workloads.kube_reasons import pod_failure, scheduler_reason
from nufi.workloads.labs.model import Backend, LabStatus
from nufi.workloads.pods import conditions_of, stuck_container

Obj = dict[str, Any]
_STOPPED_ANNOTATION = "kubeflow-resource-stopped"


@dataclass(frozen=True)
class Observed:
    status: LabStatus
    # Pending: the scheduler's words read, for the caller to replace with the accelerator's.
    # Error: what broke.
    detail: Message | None = None

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
    conditions = conditions_of(status)
    scheduled = conditions.get("PodScheduled")
    if (
        scheduled is not None
        and scheduled.get("status") == "False"
        and scheduled.get("reason") == "Unschedulable"
    ):
        return Observed("Pending", scheduler_reason(str(scheduled.get("message") or "Unschedulable")))
    phase = status.get("phase")
    if phase in ("Failed", "Succeeded"):
        return Observed("Error", pod_failure(status))
    stuck = stuck_container(status)
    if stuck is not None:
        return Observed("Error", stuck)
    ready = conditions.get("Ready")
    if phase == "Running" and ready is not None and ready.get("status") == "True":
        return Observed("Ready")
    return Observed("Starting")
