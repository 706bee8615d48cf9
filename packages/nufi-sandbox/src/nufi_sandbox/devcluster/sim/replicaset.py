"""replicaset-controller: keeps `replicas` pods alive and reports how many are ready and available."""

from __future__ import annotations

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.selectors import label_selector_from_object
from nufi_sandbox.devcluster.sim.conditions import find_condition
from nufi_sandbox.devcluster.sim.controller import ObjectKey
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import (
    Obj,
    controlled_by,
    labels_of,
    name_of,
    namespace_of,
    now,
    uid_of,
)
from nufi_sandbox.devcluster.sim.podfactory import PodFactory
from nufi_sandbox.devcluster.sim.pods import creation_order, is_active, is_available, is_ready
from nufi_sandbox.devcluster.sim.workload_controller import WorkloadController
from nufi_sandbox.devcluster.storage.store import Store

COMPONENT = "replicaset-controller"


def _deletion_rank(pod: Obj) -> tuple[int, int, int, float]:
    """Lower goes first: unscheduled, then pending, then not ready, then the youngest."""
    spec, status = pod.get("spec", {}), pod.get("status", {})
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(status.get("phase", ""), 1)
    return (1 if spec.get("nodeName") else 0, phase_rank, 1 if is_ready(pod) else 0, -creation_order(pod)[0])


class ReplicaSetController(WorkloadController):
    name = COMPONENT
    plural, kind = "replicasets", "ReplicaSet"

    def __init__(self, store: Store, events: EventRecorder) -> None:
        super().__init__(store)
        self._factory = PodFactory(store, events, COMPONENT)

    async def reconcile(self, key: ObjectKey) -> None:
        rs = self.live_workload(key)
        if rs is None:
            self.back_off(key, False)
            return
        pods = self._active_pods(rs)
        wanted = int(rs.get("spec", {}).get("replicas", 1))
        refusal: str | None = None
        if len(pods) < wanted:
            refusal = self._create_in_batches(rs, wanted - len(pods))
        elif len(pods) > wanted:
            for pod in sorted(pods, key=_deletion_rank)[: len(pods) - wanted]:
                self._factory.delete(rs, pod)
        self.back_off(key, refusal is not None)
        self._write_status(rs, refusal)

    def _create_in_batches(self, rs: Obj, missing: int) -> str | None:
        """`slowStartBatch`: 1, 2, 4... creates, stopping after the first batch with a refusal."""
        batch = 1
        while missing > 0:
            size = min(batch, missing)
            refusals = [
                result
                for result in (
                    self._factory.create(rs, self._factory.pod_from_template(rs)) for _ in range(size)
                )
                if isinstance(result, errors.ApiError)
            ]
            if refusals:
                return refusals[0].message
            missing -= size
            batch *= 2
        return None

    def _active_pods(self, rs: Obj) -> list[Obj]:
        uid = uid_of(rs)
        return [
            pod
            for pod in self.store.all_of("", "pods")
            if namespace_of(pod) == namespace_of(rs) and controlled_by(pod, uid) and is_active(pod)
        ]

    def _write_status(self, rs: Obj, refusal: str | None) -> None:
        pods = self._active_pods(rs)
        selector = label_selector_from_object(rs.get("spec", {}).get("selector") or {})
        template_labels = (rs.get("spec", {}).get("template", {}).get("metadata") or {}).get("labels") or {}
        min_ready = int(rs.get("spec", {}).get("minReadySeconds") or 0)
        available = sum(1 for p in pods if is_available(p, min_ready))
        status: Obj = {"replicas": len(pods)}
        counts = {
            "fullyLabeledReplicas": sum(
                1
                for p in pods
                if selector.matches(labels_of(p))
                and all(labels_of(p).get(k) == v for k, v in template_labels.items())
            ),
            "readyReplicas": sum(1 for p in pods if is_ready(p)),
            "availableReplicas": available,
        }
        status.update({k: v for k, v in counts.items() if v})
        status["observedGeneration"] = rs["metadata"].get("generation", 1)
        if min_ready and available < sum(1 for p in pods if is_ready(p)):
            # Pods become available by the clock, not by an event: look again when the first one can.
            self.queue.add_after((namespace_of(rs), name_of(rs)), 1.0)

        def apply(obj: Obj) -> None:
            conditions = _replica_failure(
                (obj.get("status") or {}).get("conditions") or [], refusal, pods, rs
            )
            obj["status"] = dict(status, **({"conditions": conditions} if conditions else {}))

        self.store.mutate(self._rt, namespace_of(rs), name_of(rs), apply, subresource="status")


def _replica_failure(conditions: list[Obj], refusal: str | None, pods: list[Obj], rs: Obj) -> list[Obj]:
    """`calculateStatus`: ReplicaFailure is set on the first failure (later ones leave it as it is)
    and removed by the first sync that manages its replicas without an error."""
    current = find_condition(conditions, "ReplicaFailure")
    if refusal is None:
        return [c for c in conditions if c is not current]
    if current is not None:
        return conditions
    wanted = int(rs.get("spec", {}).get("replicas", 1))
    reason = "FailedCreate" if len(pods) < wanted else "FailedDelete"
    failure = {"type": "ReplicaFailure", "status": "True", "lastTransitionTime": now(), "reason": reason}
    return [*conditions, {**failure, "message": refusal}]
