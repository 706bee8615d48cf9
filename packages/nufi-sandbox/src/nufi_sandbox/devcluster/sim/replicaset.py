"""replicaset-controller: keeps `replicas` pods alive and reports how many are ready and available."""

from __future__ import annotations

from nufi_sandbox.devcluster.selectors import label_selector_from_object
from nufi_sandbox.devcluster.sim.controller import ObjectKey
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import (
    Obj,
    controlled_by,
    labels_of,
    name_of,
    namespace_of,
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
            return
        pods = self._active_pods(rs)
        wanted = int(rs.get("spec", {}).get("replicas", 1))
        if len(pods) < wanted:
            for _ in range(wanted - len(pods)):
                self._factory.create(rs, self._factory.pod_from_template(rs))
        elif len(pods) > wanted:
            for pod in sorted(pods, key=_deletion_rank)[: len(pods) - wanted]:
                self._factory.delete(rs, pod)
        self._write_status(rs)

    def _active_pods(self, rs: Obj) -> list[Obj]:
        uid = uid_of(rs)
        return [
            pod
            for pod in self.store.all_of("", "pods")
            if namespace_of(pod) == namespace_of(rs) and controlled_by(pod, uid) and is_active(pod)
        ]

    def _write_status(self, rs: Obj) -> None:
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
            conditions = (obj.get("status") or {}).get("conditions")
            obj["status"] = dict(status, **({"conditions": conditions} if conditions else {}))

        self.store.mutate(self._rt, namespace_of(rs), name_of(rs), apply, subresource="status")
