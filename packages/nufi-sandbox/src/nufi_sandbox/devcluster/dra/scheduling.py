"""The scheduler's DynamicResources plugin, as pure functions over one pass's view of DRA objects.

PreEnqueue: a pod whose claims do not all exist yet (a template's claim not yet made by the claim
controller, a named claim not created) is not tried at all, so it gets no condition and no event, as
upstream. Filter, per node: an allocated claim must be usable there ("resourceclaim not available on
the node"); the pod's unallocated claims, plus the special claim for its DRA-backed extended resources
(KEP-5004) on a node that does not advertise them, must be allocatable together ("cannot allocate all
claims"). An extended resource goes to DRA only on a node with devices of its class; elsewhere the
resource fit keeps its "Insufficient <name>", so a pod asking for an accelerator reads the same on
every node that has none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from nufi_sandbox.devcluster.dra.allocator import allocate, class_devices
from nufi_sandbox.devcluster.dra.pod_claims import (
    ExtendedRequest,
    classes_by_extended_name,
    extended_claim_spec,
    extended_requests,
    pod_claim_names,
)
from nufi_sandbox.devcluster.dra.pools import DeviceId, allocated_devices
from nufi_sandbox.devcluster.selectors.node_selector import matches_node_selector

Obj = dict[str, Any]

NOT_AVAILABLE = "resourceclaim not available on the node"
CANNOT_ALLOCATE = "cannot allocate all claims"


@dataclass
class DraView:
    """One scheduling pass's view: classes, slices, claims and the devices claims already hold."""

    classes: dict[str, Obj]
    slices: list[Obj]
    claims: dict[tuple[str, str], Obj]
    held: set[DeviceId] = field(default_factory=set)
    backed: dict[str, Obj] = field(default_factory=dict)
    _devices: dict[str, dict[str, list[DeviceId]]] = field(default_factory=dict)

    @classmethod
    def of(cls, classes: Sequence[Obj], slices: Sequence[Obj], claims: Sequence[Obj]) -> DraView:
        by_key = {(c["metadata"].get("namespace", ""), c["metadata"]["name"]): c for c in claims}
        return cls(
            classes={c["metadata"]["name"]: c for c in classes},
            slices=list(slices),
            claims=by_key,
            held=allocated_devices(claims),
            backed=classes_by_extended_name(classes),
        )

    def devices_on(self, node: Obj) -> dict[str, tuple[int, int]]:
        """For each DRA-backed extended resource name whose class has devices on the node: how many
        it has and how many claims hold (what the resource fit and its score count there)."""
        name = str(node["metadata"]["name"])
        if name not in self._devices:
            found = {r: class_devices(c, self.slices, node) for r, c in self.backed.items()}
            self._devices[name] = {r: devices for r, devices in found.items() if devices}
        # Held is counted now: binds earlier in the pass take devices.
        return {r: (len(ds), sum(1 for d in ds if d in self.held)) for r, ds in self._devices[name].items()}

    def served_on(self, node: Obj) -> frozenset[str]:
        return frozenset(self.devices_on(node))


@dataclass(frozen=True)
class PodClaims:
    """The claims of one pod the filter works with, read once per pass."""

    allocated: list[Obj]
    pending: list[Obj]
    # The pod already has its special claim (a bind that failed after making it): no second one.
    extended_recorded: bool = False


@dataclass(frozen=True)
class Fit:
    """What binding to a node must write: each pending claim's allocation, and the special claim's."""

    allocations: list[tuple[Obj, Obj]]
    extended: list[ExtendedRequest]
    extended_allocation: Obj | None


def pod_claims(view: DraView, pod: Obj) -> PodClaims | None:
    """The pod's claims, or None while one is missing or being deleted (PreEnqueue holds the pod)."""
    namespace = pod["metadata"].get("namespace", "")
    allocated, pending = [], []
    special = ((pod.get("status") or {}).get("extendedResourceClaimStatus") or {}).get("resourceClaimName")
    names = [*pod_claim_names(pod), *([str(special)] if special else [])]
    for name in dict.fromkeys(names):
        claim = view.claims.get((namespace, name or ""))
        if name is None or claim is None or claim["metadata"].get("deletionTimestamp"):
            return None
        if (claim.get("status") or {}).get("allocation"):
            allocated.append(claim)
        else:
            pending.append(claim)
    return PodClaims(allocated, pending, extended_recorded=bool(special))


def _usable(claim: Obj, node: Obj) -> bool:
    selector = claim["status"]["allocation"].get("nodeSelector")
    return selector is None or matches_node_selector(selector, node)


def _extended_claim(pod: Obj, requests: Sequence[ExtendedRequest]) -> Obj:
    metadata = {
        "name": f"{pod['metadata']['name']}-extended-resources",
        "namespace": pod["metadata"]["namespace"],
    }
    return {"metadata": metadata, "spec": extended_claim_spec(requests)}


def filter_node(
    view: DraView, pod: Obj, claims: PodClaims, node: Obj, allocatable: Mapping[str, Decimal]
) -> tuple[list[str], Fit | None]:
    """Why the node cannot serve the pod's claims ([] if it can), and what binding there writes.

    Raises AllocationError for a claim or class the allocator cannot use."""
    if any(not _usable(claim, node) for claim in claims.allocated):
        return [NOT_AVAILABLE], None
    served = view.served_on(node)
    backed = {k: v for k, v in view.backed.items() if k in served}
    extended = [] if claims.extended_recorded else extended_requests(pod, backed, allocatable)
    wanted = list(claims.pending) + ([_extended_claim(pod, extended)] if extended else [])
    if not wanted:
        return [], Fit([], [], None)
    results = allocate(wanted, view.classes, view.slices, view.held, node)
    if results is None:
        return [CANNOT_ALLOCATE], None
    pairs = list(zip(claims.pending, results[: len(claims.pending)], strict=True))
    return [], Fit(pairs, extended, results[-1] if extended else None)


def uses_dra(view: DraView, pod: Obj) -> bool:
    """Whether the DynamicResources plugin has anything to do for the pod."""
    if pod.get("spec", {}).get("resourceClaims"):
        return True
    for container in pod.get("spec", {}).get("containers") or []:
        resources = container.get("resources") or {}
        if any(
            name in view.backed
            for name in {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
        ):
            return True
    return False
