"""A lab's status from its top object and its pod."""

from __future__ import annotations

from typing import Any

from nufi.messages import Message
from nufi.workloads.labs.status import observe

RUNNING_SET: dict[str, Any] = {"metadata": {}, "spec": {"replicas": 1}}
NOTEBOOK: dict[str, Any] = {"metadata": {"annotations": {}}, "spec": {}}


def pod(phase: str = "Running", *, ready: bool = True, **status: Any) -> dict[str, Any]:
    conditions = [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": str(ready)}]
    return {"metadata": {"name": "lab-0"}, "status": {"phase": phase, "conditions": conditions, **status}}


def test_stopped_wins_whatever_the_pod_says() -> None:
    assert observe({"metadata": {}, "spec": {"replicas": 0}}, "statefulset", pod()).status == "Stopped"
    stopped = {"metadata": {"annotations": {"kubeflow-resource-stopped": "2026-01-01T00:00:00Z"}}}
    assert observe(stopped, "notebook", pod()).status == "Stopped"
    # A StatefulSet's replicas say nothing about a Notebook (the controller owns those).
    assert observe({"metadata": {}, "spec": {"replicas": 0}}, "notebook", pod()).status == "Ready"


def test_ready_starting_and_a_pod_on_its_way_out() -> None:
    assert observe(RUNNING_SET, "statefulset", pod()).status == "Ready"
    assert observe(NOTEBOOK, "notebook", pod(ready=False)).status == "Starting"
    assert observe(RUNNING_SET, "statefulset", None).status == "Starting"
    leaving = pod()
    leaving["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert observe(RUNNING_SET, "statefulset", leaving).status == "Starting"


def test_pending_keeps_the_schedulers_words_for_the_caller_to_reword() -> None:
    waiting = {
        "metadata": {},
        "status": {
            "phase": "Pending",
            "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes"}
            ],
        },
    }
    observed = observe(RUNNING_SET, "statefulset", waiting)
    # Words the scheduler is not known to say are kept whole, to be quoted.
    assert (observed.status, observed.detail) == (
        "Pending",
        Message("workload.pending.unschedulable", {"kubernetes": "0/3 nodes"}),
    )


def test_errors_that_will_not_fix_themselves() -> None:
    broken = pod(
        ready=False,
        containerStatuses=[
            {"name": "lab", "state": {"waiting": {"reason": "ImagePullBackOff", "message": "no such image"}}}
        ],
    )
    observed = observe(RUNNING_SET, "statefulset", broken)
    assert (observed.status, observed.detail) == (
        "Error",
        Message(
            "workload.failure.image_pull",
            {"container": "lab", "kind": "ImagePullBackOff", "kubernetes": "no such image"},
        ),
    )
    assert observe(RUNNING_SET, "statefulset", pod("Failed", ready=False)).status == "Error"
    creating = pod(ready=False, containerStatuses=[{"state": {"waiting": {"reason": "ContainerCreating"}}}])
    assert observe(RUNNING_SET, "statefulset", creating).status == "Starting"
