"""A deployment's status, from its Deployment object and its pods (pure functions, no I/O).

The statuses, checked in this order (the first that holds wins); "live pods" are the Deployment's
pods that are not being deleted:

- **ScaledDown**: `spec.replicas` is 0.
- **Ready**: at least `spec.replicas` live pods are Ready.
- **Degraded**: some live pods are Ready, but fewer than `spec.replicas`, and at least one of the
  others cannot get there by waiting: it is failing (below) or unschedulable (below).
- **Error**: no live pod is Ready and a pod is failing — its phase is Failed, or a container waits
  with a reason that does not clear by itself (CrashLoopBackOff, ErrImagePull, ImagePullBackOff,
  InvalidImageName, CreateContainerConfigError, CreateContainerError, RunContainerError) — or the
  Deployment reports ReplicaFailure=True or Progressing=False with ProgressDeadlineExceeded.
- **Pending**: no live pod is Ready and a pod is unschedulable: its PodScheduled condition is False
  (the scheduler found no node; `reason` then says why in the accelerator's words), or the
  Deployment reports ReplicaFailure because a ResourceQuota refused its pods (`reason`: the quota's
  limit and use, `workload.quota_exceeded`).

The reason is a message of the catalogs (`nufi.workloads.kube_reasons` reads Kubernetes' words).
- **Starting**: anything else — pods are being created, scheduled, pulled or started, and none is
  known to be stuck.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from nufi.messages import CATALOG, Message
from nufi.workloads.kube_reasons import QUOTA_EXCEEDED, deployment_failure, pod_failure, scheduler_reason
from nufi.workloads.labels import (
    THERMAL_KEPT_REASON,
    THERMAL_OFF_REASON,
    THERMAL_REASON_MESSAGE,
    TRAFFIC,
    TRAFFIC_OFF,
)
from nufi.workloads.pods import conditions_of, stuck_container

Status = Literal["Ready", "Starting", "Degraded", "Error", "Pending", "ScaledDown"]


@dataclass(frozen=True)
class PodState:
    name: str
    node: str | None
    phase: str
    ready: bool
    terminating: bool
    # Set when the pod is stuck: what keeps it from running, read from Kubernetes' words.
    failure: Message | None
    # Set when the scheduler could not place it (PodScheduled=False): its message, read.
    unschedulable: Message | None
    # What it holds of each extended resource, from its spec.
    accelerators: dict[str, int]
    # Whether its Service routes to it (thermal control turns it off on a hot node), and why not, or
    # why a hot pod was kept routable.
    traffic_on: bool = True
    thermal_reason: str | None = None
    # The same reason as a message of the catalogs, for each reader's language (None from a NuFi
    # that wrote the English reason only).
    thermal_message: Message | None = None


def pod_state(pod: dict[str, Any]) -> PodState:
    metadata = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    conditions = conditions_of(status)
    annotations = metadata.get("annotations") or {}
    scheduled = conditions.get("PodScheduled") or {}
    unschedulable = None
    if scheduled.get("status") == "False":
        unschedulable = scheduler_reason(
            str(scheduled.get("message") or scheduled.get("reason") or "Unschedulable")
        )
    return PodState(
        name=str(metadata.get("name") or ""),
        node=spec.get("nodeName") or None,
        phase=str(status.get("phase") or "Pending"),
        ready=(conditions.get("Ready") or {}).get("status") == "True",
        terminating=bool(metadata.get("deletionTimestamp")),
        failure=_failure(status),
        unschedulable=unschedulable,
        accelerators=_extended_limits(spec),
        traffic_on=(metadata.get("labels") or {}).get(TRAFFIC) != TRAFFIC_OFF,
        thermal_reason=annotations.get(THERMAL_OFF_REASON) or annotations.get(THERMAL_KEPT_REASON),
        thermal_message=_thermal_message(annotations.get(THERMAL_REASON_MESSAGE)),
    )


def _thermal_message(text: object) -> Message | None:
    """The reason thermal control wrote as `{"code", "params"}` JSON; None when absent, unreadable or
    naming a code this NuFi's catalogs do not word."""
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("params"), dict):
        return None
    code = data.get("code")
    return Message(code, data["params"]) if isinstance(code, str) and code in CATALOG["en"] else None


def deployment_status(
    desired: int, pods: Sequence[PodState], conditions: Sequence[dict[str, Any]] = ()
) -> tuple[Status, Message | None]:
    """The status and, when something is stuck, what (a pod's failure, or the deployment's)."""
    if desired == 0:
        return "ScaledDown", None
    live = [p for p in pods if not p.terminating]
    ready = sum(1 for p in live if p.ready)
    if ready >= desired:
        return "Ready", None
    failing = next((p.failure for p in live if p.failure and not p.ready), None) or _deployment_failure(
        conditions
    )
    unschedulable = next((p.unschedulable for p in live if p.unschedulable), None)
    if ready:
        if failing or unschedulable:
            return "Degraded", failing or unschedulable
        return "Starting", None
    if failing and failing.code == QUOTA_EXCEEDED:
        # Not broken: its pods wait for the project's quota to have room (lowered, or used by others).
        return "Pending", failing
    if failing:
        return "Error", failing
    if unschedulable:
        return "Pending", unschedulable
    return "Starting", None


def _failure(status: dict[str, Any]) -> Message | None:
    if status.get("phase") == "Failed":
        return pod_failure(status)
    return stuck_container(status)


def _deployment_failure(conditions: Sequence[dict[str, Any]]) -> Message | None:
    for condition in conditions:
        kind, state, reason = condition.get("type"), condition.get("status"), condition.get("reason")
        if (kind == "ReplicaFailure" and state == "True") or (
            kind == "Progressing" and state == "False" and reason == "ProgressDeadlineExceeded"
        ):
            return deployment_failure(condition)
    return None


def _extended_limits(spec: dict[str, Any]) -> dict[str, int]:
    held: dict[str, int] = {}
    for container in spec.get("containers") or []:
        for key, text in ((container.get("resources") or {}).get("limits") or {}).items():
            if "/" in key:
                try:
                    held[key] = held.get(key, 0) + int(str(text))
                except ValueError:
                    continue
    return held
