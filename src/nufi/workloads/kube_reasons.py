"""Why a workload waits or broke, from Kubernetes' own words to a message of the catalogs.

The scheduler and the kubelet say why in English sentences ("0/3 nodes are available: 3 Insufficient
hyperaccel.ai/lpu. preemption: ..."). The common cases are read into codes with their figures (the
resource short of, the taint, how many nodes), so each reader gets them in their language; whatever
is not recognised is kept whole, shown as Kubernetes' own quoted words. Every message keeps the
original as its `kubernetes` param, for a tooltip or a log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from nufi.cluster.quota_exceeded import resource_word
from nufi.cluster.resources import parse_quantity
from nufi.messages import Message

# The code of a quota's refusal of a workload's pods, with its limit and use (also `QuotaService.shortage`).
QUOTA_EXCEEDED = "workload.quota_exceeded"

# "0/3 nodes are available: <causes>." then, since Kubernetes 1.24, ". preemption: <the same again>"
_FIT_ERROR = re.compile(r"(?P<available>\d+)/(?P<total>\d+) nodes are available:\s*(?P<causes>.*)", re.S)
# Causes are "<count> <what>" joined by ", "; a cause may hold ", " itself ("had taint {...}, that
# the pod didn't tolerate"), so split only where a count begins the next one.
_NEXT_CAUSE = re.compile(r",\s+(?=\d+\s)")
_COUNTED = re.compile(r"(?P<nodes>\d+)\s+(?P<what>.+)", re.S)
_TAINT = re.compile(r"node\(s\) had (?:untolerated )?taints? (?P<taint>\{.*?\})")
_DEVICES_UNAVAILABLE = re.compile(r"devices unavailable for (?P<resource>\S+?)\.?(?:\s|$)")
_QUOTA = re.compile(r"exceeded quota: (?P<quota>[^,\s]+)")
# kube-apiserver's quota admission: "exceeded quota: <name>, requested: <k>=<v>,<k>=<v>, used: ...,
# limited: ..." (the figures of every resource the quota limits and the pod asks for).
_QUOTA_FIGURES = re.compile(
    r"exceeded quota: (?P<quota>[^,\s]+), requested: (?P<requested>\S+), used: (?P<used>\S+), "
    r"limited: (?P<limited>[^\s,]+(?:,[^\s,]+)*)"
)

# A cause the scheduler words without a count (it concerns the pod, not the nodes).
_POD_CAUSES: dict[str, str] = {
    "pod has unbound immediate PersistentVolumeClaims": "workload.cause.unbound_claims"
}
# Counted causes, by how the scheduler's plugins word them (their start).
_NODE_CAUSES: tuple[tuple[str, str], ...] = (
    ("node(s) didn't match Pod's node affinity", "workload.cause.selector"),
    ("node(s) didn't match node selector", "workload.cause.selector"),
    ("node(s) were unschedulable", "workload.cause.cordoned"),
    ("node(s) didn't have free ports", "workload.cause.ports"),
    ("Too many pods", "workload.cause.too_many_pods"),
    ("node(s) had volume node affinity conflict", "workload.cause.volume"),
)

_IMAGE_PULL = frozenset({"ErrImagePull", "ImagePullBackOff"})
_CONFIG = frozenset({"CreateContainerConfigError"})
_CREATE = frozenset({"CreateContainerError", "RunContainerError"})


def scheduler_reason(message: str) -> Message:
    """The scheduler's PodScheduled=False message as a message of the catalogs."""
    text = message.strip()
    matched = _FIT_ERROR.match(text)
    if matched is None:
        return Message("workload.pending.unschedulable", {"kubernetes": text})
    causes_text = matched["causes"].split(" preemption:", 1)[0].strip().rstrip(".")
    causes = [_cause(part.strip()) for part in _NEXT_CAUSE.split(causes_text) if part.strip()]
    return Message(
        "workload.pending.no_node",
        {"total": int(matched["total"]), "causes": causes, "kubernetes": text},
    )


def _cause(part: str) -> Message:
    pod_cause = _POD_CAUSES.get(part)
    if pod_cause is not None:
        return Message(pod_cause, {})
    counted = _COUNTED.fullmatch(part)
    if counted is None:
        return Message("workload.cause.text", {"text": part})
    nodes, what = int(counted["nodes"]), counted["what"].strip()
    if what.startswith("Insufficient "):
        resource = what.removeprefix("Insufficient ")
        return Message(
            "workload.cause.insufficient",
            {"nodes": nodes, "resource": resource, "what": resource_word(resource)},
        )
    taint = _TAINT.match(what)
    if taint is not None:
        return Message("workload.cause.taint", {"nodes": nodes, "taint": taint["taint"]})
    for start, code in _NODE_CAUSES:
        if what.startswith(start):
            return Message(code, {"nodes": nodes})
    return Message("workload.cause.other", {"nodes": nodes, "text": what})


def container_failure(container: str, reason: str, message: str | None) -> Message:
    """A container stuck waiting for `reason` (a reason that does not clear by itself)."""
    params: dict[str, object] = {"container": container, "kind": reason, "kubernetes": message or reason}
    if reason in _IMAGE_PULL:
        return Message("workload.failure.image_pull", params)
    if reason == "InvalidImageName":
        return Message("workload.failure.invalid_image", params)
    if reason == "CrashLoopBackOff":
        return Message("workload.failure.crash_loop", params)
    if reason in _CONFIG:
        return Message("workload.failure.config", params)
    if reason in _CREATE:
        return Message("workload.failure.create_container", params)
    return Message("workload.failure.other", {"kubernetes": f"{reason}: {message}" if message else reason})


def pod_failure(status: Mapping[str, Any]) -> Message:
    """A pod whose phase is Failed (or, for a lab that should keep running, Succeeded)."""
    said = str(status.get("message") or status.get("reason") or status.get("phase") or "")
    reason = str(status.get("reason") or "")
    if status.get("phase") == "Succeeded":
        return Message("workload.failure.pod_exited", {"kubernetes": said})
    # The kubelet turned the pod away at admission: its devices were not there when it started
    # ("OutOf<resource>", or the device plugin's "Allocate failed ... devices unavailable for <key>").
    short = _DEVICES_UNAVAILABLE.search(said)
    if reason.startswith("OutOf") or short is not None:
        resource = short["resource"] if short is not None else reason.removeprefix("OutOf")
        return Message(
            "workload.failure.node_short",
            {"resource": resource, "what": resource_word(resource), "kubernetes": said},
        )
    if reason == "UnexpectedAdmissionError":
        return Message("workload.failure.device_allocation", {"kind": reason, "kubernetes": said})
    if reason == "Evicted":
        return Message("workload.failure.evicted", {"kubernetes": said})
    return Message("workload.failure.pod_failed", {"kubernetes": said})


def deployment_failure(condition: Mapping[str, Any]) -> Message:
    """A Deployment condition that says it is stuck: ReplicaFailure=True, or no progress in time."""
    said = str(condition.get("message") or condition.get("reason") or condition.get("type") or "")
    if condition.get("reason") == "ProgressDeadlineExceeded":
        return Message("workload.failure.progress_deadline", {"kubernetes": said})
    figures = _QUOTA_FIGURES.search(said)
    if figures is not None:
        return quota_exceeded(figures, said)
    quota = _QUOTA.search(said)
    if quota is not None:
        return Message("workload.failure.quota_exceeded", {"quota": quota["quota"], "kubernetes": said})
    return Message("workload.failure.replicas", {"kubernetes": said})


def quota_exceeded(figures: re.Match[str], said: str) -> Message:
    """The pods a quota refused, in accelerator words: the resource it has no room for (an
    accelerator first), how much the quota allows and how much is in use."""
    requested, used, limited = (_figures(figures[part]) for part in ("requested", "used", "limited"))
    over = [key for key in limited if used.get(key, 0.0) + requested.get(key, 0.0) > limited[key]]
    over = over or list(limited)
    resource = next((key for key in over if "/" in key), over[0])
    return Message(
        "workload.quota_exceeded",
        {
            "quota": figures["quota"],
            "resource": resource.removeprefix("requests."),
            "what": resource_word(resource),
            "limit": _said_figure(figures["limited"], resource),
            "used": _said_figure(figures["used"], resource),
            "kubernetes": said,
        },
    )


def _figures(text: str) -> dict[str, float]:
    found: dict[str, float] = {}
    for pair in text.strip(",").split(","):
        key, _, value = pair.partition("=")
        try:
            found[key] = float(parse_quantity(value))
        except ValueError:
            found[key] = 0.0
    return found


def _said_figure(text: str, resource: str) -> str:
    # As Kubernetes wrote it ("4", "100Gi"): a quantity reads best in its own units.
    return next((v for k, _, v in (p.partition("=") for p in text.split(",")) if k == resource), "0")


def names_resource(message: Message, key: str) -> bool:
    """Whether `message`, or a message within it, is about the resource `key`."""
    return message.params.get("resource") == key or any(names_resource(m, key) for m in _within(message))


def renamed(message: Message, key: str, name: str) -> Message:
    """`message` saying `name` wherever it (or a message within it) is about the resource `key`: a
    device type's name where Kubernetes wrote its resource key ("Insufficient hyperaccel.ai/lpu").
    The key stays its `resource` param; `what` is the word a person reads."""
    params = {param: _renamed_value(value, key, name) for param, value in message.params.items()}
    if params.get("resource") == key:
        params["what"] = name
    return Message(message.code, params)


def _renamed_value(value: object, key: str, name: str) -> object:
    if isinstance(value, Message):
        return renamed(value, key, name)
    if isinstance(value, list):
        return [_renamed_value(item, key, name) for item in value]
    return value


def _within(message: Message) -> list[Message]:
    found: list[Message] = []
    for value in message.params.values():
        items = value if isinstance(value, list) else [value]
        found.extend(item for item in items if isinstance(item, Message))
    return found


def kubernetes_words(message: Message | None) -> str | None:
    """Kubernetes' own words behind a reason, for a tooltip; None when it has none."""
    if message is None:
        return None
    said = message.params.get("kubernetes")
    if isinstance(said, str) and said:
        return said
    for value in message.params.values():
        if isinstance(value, Message):
            nested = kubernetes_words(value)
            if nested:
                return nested
    return None
