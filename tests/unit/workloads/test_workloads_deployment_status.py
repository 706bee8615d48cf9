"""A deployment's status from its pods and conditions, each rule of docs/workloads.md."""

from __future__ import annotations

from typing import Any

from nufi.messages import Message
from nufi.workloads.deployments.status import deployment_status, pod_state


def _pod(
    name: str = "p",
    *,
    ready: bool = False,
    node: str | None = "n1",
    phase: str = "Running",
    waiting: str | None = None,
    unschedulable: str | None = None,
    deleting: bool = False,
) -> Any:
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
    if unschedulable is not None:
        conditions.append(
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": unschedulable}
        )
    statuses = [{"name": "c", "state": {"waiting": {"reason": waiting}} if waiting else {"running": {}}}]
    metadata: dict[str, Any] = {"name": name}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    spec: dict[str, Any] = {"containers": [{"resources": {"limits": {"hyperaccel.ai/lpu": "2", "cpu": "1"}}}]}
    if node:
        spec["nodeName"] = node
    return pod_state(
        {
            "metadata": metadata,
            "spec": spec,
            "status": {"phase": phase, "conditions": conditions, "containerStatuses": statuses},
        }
    )


def test_scaled_down_wins_over_everything() -> None:
    assert deployment_status(0, [_pod(waiting="CrashLoopBackOff")]) == ("ScaledDown", None)


def test_ready_when_enough_live_pods_are_ready() -> None:
    assert deployment_status(2, [_pod("a", ready=True), _pod("b", ready=True)]) == ("Ready", None)
    # A ready pod being deleted does not count.
    status, _ = deployment_status(2, [_pod("a", ready=True), _pod("b", ready=True, deleting=True)])
    assert status == "Starting"


def test_degraded_when_some_are_ready_and_another_is_stuck() -> None:
    status, reason = deployment_status(2, [_pod("a", ready=True), _pod("b", waiting="ImagePullBackOff")])
    assert status == "Degraded" and reason is not None
    assert (reason.code, reason.params["container"], reason.params["kind"]) == (
        "workload.failure.image_pull",
        "c",
        "ImagePullBackOff",
    )
    status, reason = deployment_status(
        2, [_pod("a", ready=True), _pod("b", node=None, unschedulable="no fit")]
    )
    assert (status, reason) == (
        "Degraded",
        Message("workload.pending.unschedulable", {"kubernetes": "no fit"}),
    )


def test_error_when_none_is_ready_and_one_fails() -> None:
    assert deployment_status(1, [_pod(waiting="CrashLoopBackOff")])[0] == "Error"
    assert deployment_status(1, [_pod(phase="Failed")])[0] == "Error"
    conditions = [
        {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "slow"}
    ]
    assert deployment_status(1, [_pod()], conditions) == (
        "Error",
        Message("workload.failure.progress_deadline", {"kubernetes": "slow"}),
    )


def test_pending_when_none_is_ready_and_one_cannot_be_scheduled() -> None:
    message = "0/4 nodes are available: 4 Insufficient hyperaccel.ai/lpu."
    status, reason = deployment_status(1, [_pod(node=None, phase="Pending", unschedulable=message)])
    assert status == "Pending" and reason is not None
    assert reason.code == "workload.pending.no_node" and reason.params["kubernetes"] == message


def test_starting_otherwise() -> None:
    assert deployment_status(2, []) == ("Starting", None)
    assert deployment_status(2, [_pod("a", ready=True), _pod("b", waiting="ContainerCreating")]) == (
        "Starting",
        None,
    )


def test_a_pod_holds_its_extended_limits_only() -> None:
    assert _pod().accelerators == {"hyperaccel.ai/lpu": 2}
