"""deployment-controller: one ReplicaSet per pod template, rolled over from the old ones.

RollingUpdate brings the new ReplicaSet to full size at once and shrinks the old ones only as new pods
become available, so serving never drops below the desired count; Recreate empties the old ReplicaSets
first. Either way the rollout converges on one ReplicaSet with every replica.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable

from nufi_sandbox.devcluster.sim.conditions import set_condition
from nufi_sandbox.devcluster.sim.controller import ObjectKey
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import (
    Obj,
    controlled_by,
    controller_ref,
    name_of,
    namespace_of,
    now,
    owner_key,
    template_hash,
    uid_of,
    without_zero,
)
from nufi_sandbox.devcluster.sim.workload_controller import WorkloadController
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent

COMPONENT = "deployment-controller"
HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
DESIRED = "deployment.kubernetes.io/desired-replicas"
MAX = "deployment.kubernetes.io/max-replicas"


def _template_without_hash(rs: Obj) -> Obj:
    template = copy.deepcopy(rs.get("spec", {}).get("template") or {})
    labels = (template.get("metadata") or {}).get("labels") or {}
    labels.pop(HASH_LABEL, None)
    return template


def _resolve(value: object, replicas: int, *, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        share = replicas * int(value[:-1]) / 100
        return math.ceil(share) if round_up else math.floor(share)
    return int(value) if isinstance(value, int | str) else 0


def max_unavailable(deployment: Obj, replicas: int) -> int:
    strategy = deployment.get("spec", {}).get("strategy") or {}
    if strategy.get("type") == "Recreate":
        return 0
    rolling = strategy.get("rollingUpdate") or {}
    surge = _resolve(rolling.get("maxSurge", "25%"), replicas, round_up=True)
    unavailable = _resolve(rolling.get("maxUnavailable", "25%"), replicas, round_up=False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return min(unavailable, replicas)


def _replicas(rs: Obj) -> int:
    return int(rs.get("spec", {}).get("replicas", 0))


def _revision(rs: Obj) -> int:
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


class DeploymentController(WorkloadController):
    name = COMPONENT
    plural, kind = "deployments", "Deployment"
    owned = ("apps", "replicasets")

    def __init__(self, store: Store, events: EventRecorder) -> None:
        super().__init__(store)
        self._events = events
        self._rs_rt = store.rt("apps", "v1", "replicasets")

    def keys_for(self, event: WatchEvent) -> Iterable[ObjectKey]:
        yield from super().keys_for(event)
        if event.rt_key == ("", "pods") and event.type == "DELETED":
            # Recreate waits for the old pods to be gone, which no ReplicaSet status reports.
            rs_key = owner_key(event.object, "ReplicaSet")
            rs = self.store.find(self._rs_rt, *rs_key) if rs_key is not None else None
            key = owner_key(rs, "Deployment")
            if key is not None:
                yield key

    async def reconcile(self, key: ObjectKey) -> None:
        deployment = self.live_workload(key)
        if deployment is None:
            return
        owned = self._owned(deployment)
        paused = bool(deployment.get("spec", {}).get("paused"))
        template = deployment.get("spec", {}).get("template") or {}
        new_rs = next((rs for rs in owned if _template_without_hash(rs) == template), None)
        created = False
        # A paused deployment records template changes without rolling them out.
        if new_rs is None and not paused:
            new_rs, created = self._create_replica_set(deployment, owned), True
        old = [rs for rs in owned if new_rs is None or uid_of(rs) != uid_of(new_rs)]
        if new_rs is not None and not paused:
            self._roll(deployment, new_rs, old)
        self._clean_history(deployment, old)
        self._write_status(deployment, new_rs, created)

    def _owned(self, deployment: Obj) -> list[Obj]:
        uid = uid_of(deployment)
        return sorted(
            (
                copy.deepcopy(rs)
                for rs in self.store.all_of("apps", "replicasets")
                if namespace_of(rs) == namespace_of(deployment) and controlled_by(rs, uid)
            ),
            key=_revision,
        )

    def _create_replica_set(self, deployment: Obj, owned: list[Obj]) -> Obj:
        template = deployment.get("spec", {}).get("template") or {}
        collisions = int(deployment.get("status", {}).get("collisionCount") or 0)
        pod_hash = template_hash(template, collisions)
        namespace = namespace_of(deployment)
        rs_name = f"{name_of(deployment)}-{pod_hash}"
        existing = self.store.find(self._rs_rt, namespace, rs_name)
        if existing is not None:
            # Same name, other owner or other template: a hash collision; a new count gives a new name.
            def bump(obj: Obj) -> None:
                obj.setdefault("status", {})["collisionCount"] = collisions + 1

            self.store.mutate(self._rt, namespace, name_of(deployment), bump, subresource="status")
            raise RuntimeError(f"replica set {rs_name} already exists; retrying with a new hash")
        replicas = int(deployment.get("spec", {}).get("replicas", 1))
        spec = deployment.get("spec", {})
        selector = copy.deepcopy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})[HASH_LABEL] = pod_hash
        rs_template = copy.deepcopy(template)
        rs_template.setdefault("metadata", {}).setdefault("labels", {})[HASH_LABEL] = pod_hash
        revision = max((_revision(rs) for rs in owned), default=0) + 1
        body: Obj = {
            "metadata": {
                "name": rs_name,
                "labels": {**(template.get("metadata", {}).get("labels") or {}), HASH_LABEL: pod_hash},
                "annotations": {
                    DESIRED: str(replicas),
                    MAX: str(replicas + self._surge(deployment, replicas)),
                    REVISION: str(revision),
                },
                "ownerReferences": [controller_ref(deployment)],
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": int(spec.get("minReadySeconds") or 0),
                "selector": selector,
                "template": rs_template,
            },
        }
        created = self.store.create(self._rs_rt, namespace, body)

        def annotate(obj: Obj) -> None:
            obj["metadata"].setdefault("annotations", {})[REVISION] = str(revision)

        self.store.mutate(self._rt, namespace, name_of(deployment), annotate)
        return created

    @staticmethod
    def _surge(deployment: Obj, replicas: int) -> int:
        strategy = deployment.get("spec", {}).get("strategy") or {}
        if strategy.get("type") == "Recreate":
            return 0
        return _resolve((strategy.get("rollingUpdate") or {}).get("maxSurge", "25%"), replicas, round_up=True)

    def _roll(self, deployment: Obj, new_rs: Obj, old: list[Obj]) -> None:
        replicas = int(deployment.get("spec", {}).get("replicas", 1))
        recreate = (deployment.get("spec", {}).get("strategy") or {}).get("type") == "Recreate"
        if recreate:
            for rs in old:
                self._scale(deployment, rs, 0)
            if any(self._has_pods(rs) for rs in old):
                return
            self._scale(deployment, new_rs, replicas)
            return
        self._scale(deployment, new_rs, replicas)
        new_available = int(new_rs.get("status", {}).get("availableReplicas") or 0)
        budget = max(0, replicas - new_available)
        # The newest old ReplicaSets keep their pods longest; older ones go first.
        for rs in reversed(old):
            keep = min(_replicas(rs), budget)
            budget -= keep
            self._scale(deployment, rs, keep)

    def _has_pods(self, rs: Obj) -> bool:
        uid = uid_of(rs)
        return any(
            controlled_by(p, uid)
            for p in self.store.all_of("", "pods")
            if namespace_of(p) == namespace_of(rs)
        )

    def _scale(self, deployment: Obj, rs: Obj, replicas: int) -> None:
        current = _replicas(rs)
        if current == replicas:
            return
        desired = int(deployment.get("spec", {}).get("replicas", 1))

        def scaled(obj: Obj) -> None:
            obj["spec"]["replicas"] = replicas
            annotations = obj["metadata"].setdefault("annotations", {})
            annotations[DESIRED] = str(desired)
            annotations[MAX] = str(desired + self._surge(deployment, desired))

        self.store.mutate(self._rs_rt, namespace_of(rs), name_of(rs), scaled)
        rs["spec"]["replicas"] = replicas
        direction = "up" if replicas > current else "down"
        self._events.record(
            deployment,
            "Normal",
            "ScalingReplicaSet",
            f"Scaled {direction} replica set {name_of(rs)} from {current} to {replicas}",
            component=COMPONENT,
        )

    def _clean_history(self, deployment: Obj, old: list[Obj]) -> None:
        limit = int(deployment.get("spec", {}).get("revisionHistoryLimit", 10))
        idle = [rs for rs in old if _replicas(rs) == 0 and not self._has_pods(rs)]
        for rs in idle[: max(0, len(idle) - limit)]:
            self.store.delete(self._rs_rt, namespace_of(rs), name_of(rs))

    def _write_status(self, deployment: Obj, new_rs: Obj | None, created: bool) -> None:
        owned = self._owned(deployment)
        desired = int(deployment.get("spec", {}).get("replicas", 1))
        new_status: Obj = {}
        if new_rs is not None:
            new_status = next((rs.get("status", {}) for rs in owned if uid_of(rs) == uid_of(new_rs)), {})

        def total(field: str) -> int:
            return sum(int(rs.get("status", {}).get(field) or 0) for rs in owned)

        available = total("availableReplicas")
        counts = {
            "replicas": total("replicas"),
            "updatedReplicas": int(new_status.get("replicas") or 0),
            "readyReplicas": total("readyReplicas"),
            "availableReplicas": available,
            "unavailableReplicas": max(0, sum(_replicas(rs) for rs in owned) - available),
        }
        progress = _progress(
            deployment, new_rs, created, counts, int(new_status.get("availableReplicas") or 0)
        )
        minimum = available >= desired - max_unavailable(deployment, desired)
        availability = _AVAILABLE if minimum else _UNAVAILABLE
        stamp = now()

        failure = _replica_failure(owned, new_rs)

        def apply(obj: Obj) -> None:
            generation = obj["metadata"].get("generation", 1)
            obj["status"] = _status(
                obj.get("status") or {}, generation, counts, availability, progress, stamp
            )
            _set_replica_failure(obj["status"]["conditions"], failure)

        self.store.mutate(
            self._rt, namespace_of(deployment), name_of(deployment), apply, subresource="status"
        )


# The Available condition: status, reason, message.
_AVAILABLE = ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
_UNAVAILABLE = ("False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")


def _status(
    old_status: Obj,
    generation: int,
    counts: dict[str, int],
    availability: tuple[str, str, str],
    progress: tuple[str, str, str],
    stamp: str,
) -> Obj:
    """The Deployment's new status: its counts, and its conditions with Available and Progressing set."""
    conditions = copy.deepcopy(old_status.get("conditions") or [])
    for kind, (state, reason, message) in (("Available", availability), ("Progressing", progress)):
        set_condition(conditions, kind, state, now=stamp, reason=reason, message=message, update_time=True)
    status: Obj = {"observedGeneration": generation, **without_zero(counts)}
    if old_status.get("collisionCount"):
        status["collisionCount"] = old_status["collisionCount"]
    status["conditions"] = conditions
    return status


def _progress(
    deployment: Obj, new_rs: Obj | None, created: bool, counts: dict[str, int], new_available: int
) -> tuple[str, str, str]:
    """Status, reason and message of the Progressing condition."""
    if deployment.get("spec", {}).get("paused"):
        return "Unknown", "DeploymentPaused", "Deployment is paused"
    if new_rs is None:
        return "True", "ReplicaSetUpdated", "Deployment is progressing."
    desired = int(deployment.get("spec", {}).get("replicas", 1))
    rs_name = name_of(new_rs)
    if counts["updatedReplicas"] == desired == counts["replicas"] == new_available:
        return "True", "NewReplicaSetAvailable", f'ReplicaSet "{rs_name}" has successfully progressed.'
    if created:
        return "True", "NewReplicaSetCreated", f'Created new replica set "{rs_name}"'
    return "True", "ReplicaSetUpdated", f'ReplicaSet "{rs_name}" is progressing.'


def _replica_failure(owned: list[Obj], new_rs: Obj | None) -> Obj | None:
    """`getReplicaFailures`: the new ReplicaSet's ReplicaFailure first, else any other's, as a
    Deployment condition (its update time is the ReplicaSet condition's transition time)."""
    ranked = sorted(owned, key=lambda rs: new_rs is None or uid_of(rs) != uid_of(new_rs))
    for rs in ranked:
        for cond in (rs.get("status") or {}).get("conditions") or []:
            if cond.get("type") == "ReplicaFailure":
                return {**cond, "lastUpdateTime": cond.get("lastTransitionTime")}
    return None


def _set_replica_failure(conditions: list[Obj], failure: Obj | None) -> None:
    """`SetDeploymentCondition`/`RemoveDeploymentCondition`: same status and reason change nothing;
    otherwise the condition goes to the end, keeping its transition time if the status held."""
    current = next((c for c in conditions if c.get("type") == "ReplicaFailure"), None)
    if failure is None:
        if current is not None:
            conditions.remove(current)
        return
    if current is not None:
        if (current.get("status"), current.get("reason")) == (failure.get("status"), failure.get("reason")):
            return
        if current.get("status") == failure.get("status"):
            failure = {**failure, "lastTransitionTime": current.get("lastTransitionTime")}
        conditions.remove(current)
    conditions.append(failure)
