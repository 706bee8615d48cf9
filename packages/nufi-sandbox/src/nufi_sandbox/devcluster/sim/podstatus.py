"""The pod status a kubelet writes: running containers and the readiness conditions, gates included.

Writers other than the kubelet own their own conditions (readiness gates, DisruptionTarget...): every
function here edits the status it is given in place and leaves conditions it does not own untouched.
"""

from __future__ import annotations

import hashlib
from typing import Any

from nufi_sandbox.devcluster.sim.conditions import find_condition, set_condition

Obj = dict[str, Any]

# The order the kubelet lists its conditions in; PodScheduled comes from the binding.
KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")


def normalize_image(image: str) -> str:
    """The fully qualified reference the runtime reports: docker.io/library/nginx:latest for nginx."""
    name = image
    first, _, rest = name.partition("/")
    if not rest:
        name = f"docker.io/library/{name}"
    elif "." not in first and ":" not in first and first != "localhost":
        name = f"docker.io/{name}"
    last = name.rsplit("/", 1)[-1]
    if "@" not in last and ":" not in last:
        name += ":latest"
    return name


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def container_status(container: Obj, pod_uid: str, started_at: str, *, init: bool = False) -> Obj:
    image = normalize_image(str(container.get("image", "")))
    repository = image.split("@", 1)[0]
    if ":" in repository.rsplit("/", 1)[-1]:
        repository = repository.rsplit(":", 1)[0]
    status: Obj = {
        "name": container["name"],
        "image": image,
        "imageID": f"{repository}@sha256:{_digest(image)}",
        "containerID": f"containerd://{_digest(pod_uid + container['name'])}",
        "restartCount": 0,
        "lastState": {},
    }
    if init:
        status.update(
            ready=True,
            started=False,
            state={
                "terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": started_at,
                    "finishedAt": started_at,
                    "containerID": status["containerID"],
                }
            },
        )
    else:
        status.update(ready=True, started=True, state={"running": {"startedAt": started_at}})
    return status


def gate_messages(spec: Obj, conditions: list[Obj]) -> list[str]:
    """What keeps readiness gates from passing, in the kubelet's words (missing counts as False)."""
    messages = []
    for gate in spec.get("readinessGates") or []:
        kind = gate.get("conditionType", "")
        found = find_condition(conditions, kind)
        if found is None:
            messages.append(f'corresponding condition of pod readiness gate "{kind}" does not exist.')
        elif found.get("status") != "True":
            messages.append(
                f'the status of pod readiness gate "{kind}" is not "True", but {found.get("status")}'
            )
    return messages


def set_readiness(status: Obj, spec: Obj, now: str) -> bool:
    """ContainersReady from the container statuses, Ready from them and every readiness gate.

    Returns whether a condition changed."""
    conditions: list[Obj] = status.setdefault("conditions", [])
    unready = [s["name"] for s in status.get("containerStatuses") or [] if not s.get("ready")]
    if unready:
        reason, message = "ContainersNotReady", f"containers with unready status: [{' '.join(unready)}]"
        changed = set_condition(
            conditions, "ContainersReady", "False", now=now, reason=reason, message=message, probe_time=True
        )
        return (
            set_condition(
                conditions, "Ready", "False", now=now, reason=reason, message=message, probe_time=True
            )
            or changed
        )
    changed = set_condition(conditions, "ContainersReady", "True", now=now, probe_time=True)
    gates = gate_messages(spec, conditions)
    if gates:
        return (
            set_condition(
                conditions,
                "Ready",
                "False",
                now=now,
                reason="ReadinessGatesNotReady",
                message=", ".join(gates),
                probe_time=True,
            )
            or changed
        )
    return set_condition(conditions, "Ready", "True", now=now, probe_time=True) or changed


def set_running(status: Obj, pod: Obj, *, pod_ip: str, host_ip: str, now: str) -> None:
    """Move a pending pod to Running with every container started and ready."""
    spec = pod.get("spec", {})
    uid = str(pod["metadata"].get("uid", ""))
    status.update(
        phase="Running",
        hostIP=host_ip,
        hostIPs=[{"ip": host_ip}],
        podIP=pod_ip,
        podIPs=[{"ip": pod_ip}],
        startTime=status.get("startTime") or now,
        containerStatuses=[container_status(c, uid, now) for c in spec.get("containers") or []],
    )
    if spec.get("initContainers"):
        status["initContainerStatuses"] = [
            container_status(c, uid, now, init=True) for c in spec["initContainers"]
        ]
    status.pop("reason", None)
    status.pop("message", None)
    conditions: list[Obj] = status.setdefault("conditions", [])
    set_condition(conditions, "PodReadyToStartContainers", "True", now=now, probe_time=True)
    set_condition(conditions, "Initialized", "True", now=now, probe_time=True)
    set_condition(conditions, "PodScheduled", "True", now=now, probe_time=True)
    set_readiness(status, spec, now)
    _order_conditions(conditions)


def apply_container_fields(status: Obj, container: str, fields: Obj) -> None:
    """Lay what a running process reports (state, readiness, restarts) over one container's status."""
    for entry in status.get("containerStatuses") or []:
        if entry.get("name") == container:
            entry.update(fields)
            if "running" not in fields.get("state", {}):
                entry["ready"] = False


def set_admission_failure(status: Obj, reason: str, message: str) -> None:
    """A pod the kubelet refused to admit: terminal at once, containers never started."""
    status.update(phase="Failed", reason=reason, message=message)


def _order_conditions(conditions: list[Obj]) -> None:
    rank = {kind: i for i, kind in enumerate((*KUBELET_CONDITIONS, "PodScheduled"))}
    conditions.sort(key=lambda c: rank.get(str(c.get("type")), len(rank)))
