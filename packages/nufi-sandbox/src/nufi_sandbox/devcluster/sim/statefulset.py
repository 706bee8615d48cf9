"""statefulset-controller: pods `<set>-0..n-1` with stable names, claims from the claim templates.

OrderedReady creates ordinal i only when every lower one is Running and Ready, removes the highest
ordinal first and one at a time; Parallel creates and removes all at once. A template change replaces
pods from the highest ordinal down, one at a time, honouring the rolling update partition.
"""

from __future__ import annotations

import copy
import re

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.sim.controller import ObjectKey
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import (
    Obj,
    controlled_by,
    is_deleting,
    name_of,
    namespace_of,
    template_hash,
    uid_of,
)
from nufi_sandbox.devcluster.sim.podfactory import PodFactory
from nufi_sandbox.devcluster.sim.pods import is_available, is_running_and_ready, is_terminal
from nufi_sandbox.devcluster.sim.workload_controller import WorkloadController
from nufi_sandbox.devcluster.storage.store import Store

COMPONENT = "statefulset-controller"
REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


class StatefulSetController(WorkloadController):
    name = COMPONENT
    plural, kind = "statefulsets", "StatefulSet"

    def __init__(self, store: Store, events: EventRecorder) -> None:
        super().__init__(store)
        self._claims = store.rt("", "v1", "persistentvolumeclaims")
        self._factory = PodFactory(store, events, COMPONENT, stateful=True)
        self._events = events
        # Set by `_create` when the API server refuses a claim or pod during the current reconcile.
        self._refused = False

    def _pods(self, sts: Obj) -> dict[int, Obj]:
        pattern = re.compile(rf"^{re.escape(name_of(sts))}-(\d+)$")
        found: dict[int, Obj] = {}
        for pod in self.store.all_of("", "pods"):
            if namespace_of(pod) != namespace_of(sts) or not controlled_by(pod, uid_of(sts)):
                continue
            match = pattern.match(name_of(pod))
            if match:
                found[int(match.group(1))] = pod
        return found

    async def reconcile(self, key: ObjectKey) -> None:
        _, name = key
        sts = self.live_workload(key)
        if sts is None:
            return
        spec = sts.get("spec", {})
        replicas = int(spec.get("replicas", 1))
        ordered = spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
        revision = f"{name}-{template_hash(spec.get('template') or {})}"
        pods = self._pods(sts)
        for pod in pods.values():
            if is_terminal(pod) and not is_deleting(pod):
                self._factory.delete(sts, pod)  # failed or finished pods are replaced
        self._refused = False
        steady = self._scale_up(sts, pods, replicas, revision, ordered)
        if steady:
            steady = self._scale_down(sts, pods, replicas, ordered)
        if steady:
            self._roll(sts, pods, replicas, revision)
        self.back_off(key, self._refused)
        self._write_status(sts, revision)

    def _scale_up(self, sts: Obj, pods: dict[int, Obj], replicas: int, revision: str, ordered: bool) -> bool:
        """Create missing ordinals; False while an OrderedReady set waits for a predecessor."""
        steady = True
        for ordinal in range(replicas):
            pod = pods.get(ordinal)
            if pod is None:
                self._create(sts, ordinal, revision)
                steady = False
                if ordered:
                    return False
            elif ordered and (is_deleting(pod) or not is_running_and_ready(pod)):
                return False
        return steady

    def _scale_down(self, sts: Obj, pods: dict[int, Obj], replicas: int, ordered: bool) -> bool:
        condemned = sorted((i for i in pods if i >= replicas), reverse=True)
        if not condemned:
            return True
        if ordered:
            if not any(is_deleting(pods[i]) for i in condemned):
                self._factory.delete(sts, pods[condemned[0]])
            return False
        for ordinal in condemned:
            if not is_deleting(pods[ordinal]):
                self._factory.delete(sts, pods[ordinal])
        return False

    def _roll(self, sts: Obj, pods: dict[int, Obj], replicas: int, revision: str) -> None:
        strategy = sts.get("spec", {}).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return
        partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
        members = [pods[i] for i in range(replicas) if i in pods]
        if len(members) < replicas or not all(
            is_running_and_ready(p) and not is_deleting(p) for p in members
        ):
            return
        stale = [
            i
            for i in range(partition, replicas)
            if (pods[i]["metadata"].get("labels") or {}).get(REVISION_LABEL) != revision
        ]
        if stale:
            self._factory.delete(sts, pods[max(stale)])

    def _create(self, sts: Obj, ordinal: int, revision: str) -> None:
        set_name = name_of(sts)
        pod_name = f"{set_name}-{ordinal}"
        pod = self._factory.pod_from_template(
            sts,
            name=pod_name,
            extra_labels={
                REVISION_LABEL: revision,
                POD_NAME_LABEL: pod_name,
                POD_INDEX_LABEL: str(ordinal),
            },
        )
        spec = pod["spec"]
        spec["hostname"] = pod_name
        if sts.get("spec", {}).get("serviceName"):
            spec["subdomain"] = sts["spec"]["serviceName"]
        for template in sts.get("spec", {}).get("volumeClaimTemplates") or []:
            volume = template["metadata"]["name"]
            claim = self._ensure_claim(sts, template, f"{volume}-{pod_name}")
            if claim is None:
                self._refused = True
                return
            volumes = [v for v in spec.get("volumes") or [] if v.get("name") != volume]
            volumes.append({"name": volume, "persistentVolumeClaim": {"claimName": claim}})
            spec["volumes"] = volumes
        if isinstance(self._factory.create(sts, pod), errors.ApiError):
            self._refused = True

    def _ensure_claim(self, sts: Obj, template: Obj, claim: str) -> str | None:
        namespace = namespace_of(sts)
        if self.store.find(self._claims, namespace, claim) is not None:
            return claim
        body = copy.deepcopy(template)
        labels = dict((sts.get("spec", {}).get("selector") or {}).get("matchLabels") or {})
        body["metadata"] = {"name": claim, "labels": {**(template["metadata"].get("labels") or {}), **labels}}
        body.pop("status", None)
        try:
            self.store.create(self._claims, namespace, body)
        except errors.ApiError as exc:
            pod, set_name = claim.removeprefix(f"{template['metadata']['name']}-"), name_of(sts)
            for message in (
                f"create Claim {claim} for Pod {pod} in StatefulSet {set_name} failed error: {exc.message}",
                f"create Pod {pod} in StatefulSet {set_name} failed error: "
                f"failed to create PVC {claim}: {exc.message}",
            ):
                self._events.record(sts, "Warning", "FailedCreate", message, component=COMPONENT)
            return None
        claim_spec = body.get("spec", {})

        # No volume provisioner runs here: claims bind at once, as with a default StorageClass.
        def bound(obj: Obj) -> None:
            obj["status"] = {
                "phase": "Bound",
                "accessModes": list(claim_spec.get("accessModes") or ["ReadWriteOnce"]),
                "capacity": dict((claim_spec.get("resources") or {}).get("requests") or {}),
            }

        self.store.mutate(self._claims, namespace, claim, bound, subresource="status")
        return claim

    def _write_status(self, sts: Obj, revision: str) -> None:
        pods = [p for p in self._pods(sts).values() if not is_terminal(p)]
        previous = sts.get("status") or {}
        replicas = int(sts.get("spec", {}).get("replicas", 1))
        min_ready = int(sts.get("spec", {}).get("minReadySeconds") or 0)

        def with_revision(rev: str) -> int:
            return sum(1 for p in pods if (p["metadata"].get("labels") or {}).get(REVISION_LABEL) == rev)

        updated = with_revision(revision)
        current_revision = previous.get("currentRevision") or revision
        if updated == replicas == len(pods):
            current_revision = revision
        status: Obj = {
            "observedGeneration": sts["metadata"].get("generation", 1),
            "replicas": len(pods),
            "availableReplicas": sum(
                1 for p in pods if is_running_and_ready(p) and is_available(p, min_ready)
            ),
            "currentRevision": current_revision,
            "updateRevision": revision,
            "collisionCount": 0,
        }
        counts = {
            "readyReplicas": sum(1 for p in pods if is_running_and_ready(p)),
            "currentReplicas": with_revision(current_revision),
            "updatedReplicas": updated,
        }
        status.update({k: v for k, v in counts.items() if v})

        def apply(obj: Obj) -> None:
            obj["status"] = status

        self.store.mutate(self._rt, namespace_of(sts), name_of(sts), apply, subresource="status")
