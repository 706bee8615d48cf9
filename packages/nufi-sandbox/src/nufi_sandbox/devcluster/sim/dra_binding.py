"""What the scheduler writes before it binds a pod that uses DRA (upstream's PreBind).

Each claim the filter allocated gets `status.allocation`, every claim of the pod lists the pod in
`status.reservedFor`, and allocated claims carry the `resource.kubernetes.io/delete-protection`
finalizer until the claim controller deallocates them. For DRA-backed extended resources the special
claim is created (owned by the pod, annotated as upstream does), allocated and reserved, and the pod's
`status.extendedResourceClaimStatus` names it with one mapping per container and resource.
"""

from __future__ import annotations

from typing import Any

from nufi_sandbox.devcluster.dra.pod_claims import EXTENDED_CLAIM, extended_claim_spec
from nufi_sandbox.devcluster.dra.pools import allocated_devices
from nufi_sandbox.devcluster.dra.scheduling import DraView, Fit, PodClaims
from nufi_sandbox.devcluster.sim.meta import controller_ref, name_of, namespace_of, uid_of
from nufi_sandbox.devcluster.storage.store import Store

Obj = dict[str, Any]

DELETE_PROTECTION = "resource.kubernetes.io/delete-protection"


def consumer(pod: Obj) -> Obj:
    return {"resource": "pods", "name": name_of(pod), "uid": uid_of(pod)}


class ClaimBinder:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._claims = store.rt("resource.k8s.io", "v1", "resourceclaims")
        self._pods = store.rt("", "v1", "pods")

    def reserve(self, pod: Obj, claims: PodClaims, fit: Fit, view: DraView) -> None:
        """Allocate and reserve every claim of the pod; raises ApiError if a write is refused."""
        allocations = {name_of(claim): allocation for claim, allocation in fit.allocations}
        for claim in [*claims.allocated, *claims.pending]:
            written = self._reserve(pod, name_of(claim), allocations.get(name_of(claim)))
            # A later pod of this pass sharing the claim sees it allocated (upstream's assume cache).
            view.claims[(namespace_of(written), name_of(written))] = written
        if fit.extended_allocation is not None:
            self._extended(pod, fit)
        for allocation in [*allocations.values(), fit.extended_allocation]:
            if allocation is not None:
                view.held |= allocated_devices([{"status": {"allocation": allocation}}])

    def _reserve(self, pod: Obj, claim: str, allocation: Obj | None) -> Obj:
        namespace = namespace_of(pod)
        if allocation is not None:

            def protect(obj: Obj) -> None:
                finalizers = obj["metadata"].setdefault("finalizers", [])
                if DELETE_PROTECTION not in finalizers:
                    finalizers.append(DELETE_PROTECTION)

            self._store.mutate(self._claims, namespace, claim, protect)

        def write(obj: Obj) -> None:
            status = obj.setdefault("status", {})
            if allocation is not None:
                status["allocation"] = allocation
            reserved = status.setdefault("reservedFor", [])
            if not any(entry.get("uid") == uid_of(pod) for entry in reserved):
                reserved.append(consumer(pod))

        return self._store.mutate(self._claims, namespace, claim, write, subresource="status")

    def _extended(self, pod: Obj, fit: Fit) -> None:
        owner = controller_ref({**pod, "apiVersion": "v1", "kind": "Pod"})
        body: Obj = {
            "metadata": {
                # The API server names it, as it does for upstream's scheduler.
                "generateName": f"{name_of(pod)}-extended-resources-",
                "annotations": {EXTENDED_CLAIM: "true"},
                "ownerReferences": [owner],
            },
            "spec": extended_claim_spec(fit.extended),
        }
        claim = self._store.create(self._claims, namespace_of(pod), body)
        self._reserve(pod, name_of(claim), fit.extended_allocation)
        mappings = [
            {"containerName": r.container, "requestName": r.request, "resourceName": r.resource}
            for r in fit.extended
        ]

        def record(obj: Obj) -> None:
            obj.setdefault("status", {})["extendedResourceClaimStatus"] = {
                "resourceClaimName": name_of(claim),
                "requestMappings": mappings,
            }

        self._store.mutate(self._pods, namespace_of(pod), name_of(pod), record, subresource="status")
