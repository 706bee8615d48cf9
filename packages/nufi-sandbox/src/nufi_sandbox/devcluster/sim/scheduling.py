"""The scheduler's decisions as pure functions: filters, their reasons, node scores and the fit error.

Filters run in the default profile's order (NodeUnschedulable, TaintToleration, NodeAffinity,
NodeResourcesFit) and a node reports the reasons of the first one that rejects it, as the framework
does. The message counts each reason over nodes, sorts the "<count> <reason>" strings and joins them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from nufi_sandbox.devcluster.selectors.node_selector import matches_node_selector
from nufi_sandbox.devcluster.sim.pods import pod_requests, quantity

Obj = dict[str, Any]

NODE_UNSCHEDULABLE = "node(s) were unschedulable"
NODE_SELECTOR_MISMATCH = "node(s) didn't match Pod's node affinity/selector"
TOO_MANY_PODS = "Too many pods"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass
class NodeView:
    """A node as the scheduler's cache holds it: the object plus what its pods already take."""

    node: Obj
    requested: dict[str, Decimal] = field(default_factory=dict)
    # Scoring counts a container without cpu/memory requests as using a little of each.
    nonzero_requested: dict[str, Decimal] = field(default_factory=dict)
    pod_count: int = 0

    @property
    def name(self) -> str:
        return str(self.node["metadata"]["name"])

    @property
    def allocatable(self) -> dict[str, Decimal]:
        status = self.node.get("status", {})
        source = status.get("allocatable") or status.get("capacity") or {}
        return {name: quantity(value) for name, value in source.items()}

    def add_pod(self, pod: Obj) -> None:
        self.pod_count += 1
        for name, value in pod_requests(pod).items():
            self.requested[name] = self.requested.get(name, Decimal(0)) + value
        for name, value in pod_requests(pod, nonzero=True).items():
            self.nonzero_requested[name] = self.nonzero_requested.get(name, Decimal(0)) + value


# -- taints and tolerations -----------------------------------------------------------------------------


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if not key:
        return operator == "Exists"
    if key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def untolerated_taint(
    taints: Iterable[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]], effects: Sequence[str]
) -> Mapping[str, Any] | None:
    for taint in taints:
        if taint.get("effect") not in effects:
            continue
        if not any(tolerates(toleration, taint) for toleration in tolerations):
            return taint
    return None


# -- node affinity --------------------------------------------------------------------------------------


def matches_node_affinity(pod_spec: Mapping[str, Any], node: Obj) -> bool:
    """nodeSelector and requiredDuringSchedulingIgnoredDuringExecution (terms ORed, requirements ANDed)."""
    labels = node.get("metadata", {}).get("labels") or {}
    for key, value in (pod_spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = (
        (pod_spec.get("affinity") or {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    return not required or matches_node_selector(required, node)


# -- filters --------------------------------------------------------------------------------------------


def resource_fit_reasons(
    requests: Mapping[str, Decimal], view: NodeView, dra_backed: frozenset[str] = frozenset()
) -> list[str]:
    """NodeResourcesFit. An extended resource the node serves through DRA (KEP-5004: a DeviceClass backs
    it, the node has such devices and does not advertise the name) is left to the DynamicResources
    filter."""
    allocatable = view.allocatable
    reasons: list[str] = []
    if view.pod_count + 1 > allocatable.get("pods", Decimal(0)):
        reasons.append(TOO_MANY_PODS)
    for name, amount in requests.items():
        if amount <= 0 or name == "pods":
            continue
        if name in dra_backed and allocatable.get(name, Decimal(0)) <= 0:
            continue
        free = allocatable.get(name, Decimal(0)) - view.requested.get(name, Decimal(0))
        if amount > free:
            reasons.append(f"Insufficient {name}")
    return reasons


def filter_reasons(pod: Obj, view: NodeView, dra_backed: frozenset[str] = frozenset()) -> list[str]:
    """Why the node cannot take the pod, in the words of the first filter that says no; [] if it can."""
    spec = pod.get("spec", {})
    tolerations = spec.get("tolerations") or []
    if view.node.get("spec", {}).get("unschedulable") and not any(
        tolerates(t, UNSCHEDULABLE_TAINT) for t in tolerations
    ):
        return [NODE_UNSCHEDULABLE]
    taint = untolerated_taint(view.node.get("spec", {}).get("taints") or [], tolerations, _BLOCKING_EFFECTS)
    if taint is not None:
        return [f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}"]
    if not matches_node_affinity(spec, view.node):
        return [NODE_SELECTOR_MISMATCH]
    return resource_fit_reasons(pod_requests(pod), view, dra_backed)


def fit_error_message(total_nodes: int, reasons_by_node: Mapping[str, Sequence[str]]) -> str:
    counts: Counter[str] = Counter()
    for reasons in reasons_by_node.values():
        counts.update(reasons)
    message = f"0/{total_nodes} nodes are available:"
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    if histogram:
        message += f" {', '.join(histogram)}."
    return message


# -- scoring --------------------------------------------------------------------------------------------


def least_allocated_score(
    pod: Obj, view: NodeView, dra_devices: Mapping[str, tuple[int, int]] | None = None
) -> Decimal:
    """Mean free share (0-100) after placing the pod, over cpu, memory and the extended resources it asks for.

    The default LeastAllocated strategy weighs cpu and memory; extended resources join so that accelerator
    pods spread over accelerator nodes. A name the node serves through DRA counts its devices
    (`dra_devices`: total and held), so DRA nodes and device-plugin nodes share pods alike."""
    requests = pod_requests(pod, nonzero=True)
    allocatable = view.allocatable
    names = ["cpu", "memory", *sorted(n for n in requests if n not in ("cpu", "memory", "pods"))]
    scores: list[Decimal] = []
    for name in names:
        capacity = allocatable.get(name, Decimal(0))
        used = view.nonzero_requested.get(name, Decimal(0)) + requests.get(name, Decimal(0))
        if capacity <= 0 and dra_devices and name in dra_devices:
            total, held = dra_devices[name]
            capacity, used = Decimal(total), Decimal(held) + requests.get(name, Decimal(0))
        if capacity <= 0:
            continue
        scores.append(max(Decimal(0), (capacity - used) * 100 / capacity))
    return sum(scores, Decimal(0)) / len(scores) if scores else Decimal(0)


def prefer_no_schedule_penalty(pod: Obj, view: NodeView) -> int:
    tolerations = pod.get("spec", {}).get("tolerations") or []
    return sum(
        1
        for taint in view.node.get("spec", {}).get("taints") or []
        if taint.get("effect") == "PreferNoSchedule" and not any(tolerates(t, taint) for t in tolerations)
    )


def choose_node(
    pod: Obj,
    views: Sequence[NodeView],
    *,
    dra_devices: Callable[[NodeView], Mapping[str, tuple[int, int]]] | None = None,
    last_filter: Callable[[NodeView], list[str]] | None = None,
) -> tuple[NodeView | None, dict[str, list[str]]]:
    """The best feasible node (fewest untolerated PreferNoSchedule taints, then least allocated, then
    name), or None with every node's reasons. `last_filter` runs after the others pass (DynamicResources);
    `dra_devices` says which extended resources a node serves through DRA, with its devices (total, held)."""
    rejected: dict[str, list[str]] = {}
    feasible: list[NodeView] = []
    for view in views:
        served = frozenset(dra_devices(view)) if dra_devices else frozenset()
        reasons = filter_reasons(pod, view, served)
        if not reasons and last_filter is not None:
            reasons = last_filter(view)
        if reasons:
            rejected[view.name] = reasons
        else:
            feasible.append(view)
    if not feasible:
        return None, rejected
    best = min(
        feasible,
        key=lambda v: (
            prefer_no_schedule_penalty(pod, v),
            -least_allocated_score(pod, v, dra_devices(v) if dra_devices else None),
            v.name,
        ),
    )
    return best, rejected
