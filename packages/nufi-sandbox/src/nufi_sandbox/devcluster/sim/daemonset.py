"""daemonset-controller: one pod on every node that matches the selector and whose taints it tolerates.

Daemon pods carry the tolerations the real controller adds, ignore cordons, and are created with their
node already set. A template change replaces them node by node, one unavailable at a time.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

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
from nufi_sandbox.devcluster.sim.pods import is_available, is_ready, is_terminal
from nufi_sandbox.devcluster.sim.scheduling import matches_node_affinity, untolerated_taint
from nufi_sandbox.devcluster.sim.workload_controller import WorkloadController
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent

COMPONENT = "daemonset-controller"
REVISION_LABEL = "controller-revision-hash"
GENERATION_LABEL = "pod-template-generation"

DAEMON_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)


def daemon_pod_spec(template_spec: Obj, node: str) -> Obj:
    spec = copy.deepcopy(template_spec)
    tolerations = spec.setdefault("tolerations", [])
    for toleration in DAEMON_TOLERATIONS:
        if not any(
            t.get("key") == toleration["key"] and t.get("effect") == toleration["effect"] for t in tolerations
        ):
            tolerations.append(dict(toleration))
    if spec.get("hostNetwork"):
        tolerations.append(
            {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"}
        )
    affinity = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]},
        ]
    }
    spec["nodeName"] = node
    return spec


def should_run(template_spec: Obj, node: Obj) -> bool:
    spec = daemon_pod_spec(template_spec, str(node["metadata"]["name"]))
    # The pinning affinity was just added for this node; the user's own constraints are what matter.
    user = {"nodeSelector": template_spec.get("nodeSelector"), "affinity": template_spec.get("affinity")}
    if not matches_node_affinity(user, node):
        return False
    taints = node.get("spec", {}).get("taints") or []
    return untolerated_taint(taints, spec["tolerations"], ("NoSchedule", "NoExecute")) is None


class DaemonSetController(WorkloadController):
    name = COMPONENT
    plural, kind = "daemonsets", "DaemonSet"

    def __init__(self, store: Store, events: EventRecorder) -> None:
        super().__init__(store)
        self._factory = PodFactory(store, events, COMPONENT)

    def keys_for(self, event: WatchEvent) -> Iterable[ObjectKey]:
        yield from super().keys_for(event)
        if event.rt_key == ("", "nodes"):
            # A node that comes, goes or changes labels or taints may want a daemon pod or lose one.
            yield from self.all_keys()

    async def reconcile(self, key: ObjectKey) -> None:
        ds = self.live_workload(key)
        if ds is None:
            return
        template = ds.get("spec", {}).get("template") or {}
        revision = template_hash(template)
        nodes = sorted(self.store.all_of("", "nodes"), key=name_of)
        by_node = self._pods_by_node(ds)
        for node in nodes:
            node_name = name_of(node)
            pods = by_node.get(node_name, [])
            for pod in pods:
                if is_terminal(pod) and not is_deleting(pod):
                    self._factory.delete(ds, pod)
            live = [p for p in pods if not is_terminal(p)]
            if should_run(template.get("spec") or {}, node):
                if not live:
                    self._create(ds, node_name, revision)
                for extra in [p for p in live if not is_deleting(p)][1:]:
                    self._factory.delete(ds, extra)
            else:
                for pod in live:
                    if not is_deleting(pod):
                        self._factory.delete(ds, pod)
        self._roll(ds, nodes, revision)
        self._write_status(ds, nodes, revision)

    def _pods_by_node(self, ds: Obj) -> dict[str, list[Obj]]:
        out: dict[str, list[Obj]] = {}
        for pod in self.store.all_of("", "pods"):
            if namespace_of(pod) == namespace_of(ds) and controlled_by(pod, uid_of(ds)):
                out.setdefault(str(pod.get("spec", {}).get("nodeName") or ""), []).append(pod)
        return out

    def _create(self, ds: Obj, node: str, revision: str) -> None:
        pod = self._factory.pod_from_template(
            ds,
            extra_labels={
                REVISION_LABEL: revision,
                GENERATION_LABEL: str(ds["metadata"].get("generation", 1)),
            },
        )
        pod["spec"] = daemon_pod_spec(pod["spec"], node)
        self._factory.create(ds, pod)

    def _roll(self, ds: Obj, nodes: list[Obj], revision: str) -> None:
        strategy = ds.get("spec", {}).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return
        budget = int((strategy.get("rollingUpdate") or {}).get("maxUnavailable") or 1)
        pods = [p for group in self._pods_by_node(ds).values() for p in group if not is_terminal(p)]
        unavailable = sum(1 for p in pods if is_deleting(p) or not is_ready(p))
        stale = [
            p
            for p in pods
            if not is_deleting(p) and (p["metadata"].get("labels") or {}).get(REVISION_LABEL) != revision
        ]
        for pod in sorted(stale, key=name_of)[: max(0, budget - unavailable)]:
            self._factory.delete(ds, pod)

    def _write_status(self, ds: Obj, nodes: list[Obj], revision: str) -> None:
        template_spec = ds.get("spec", {}).get("template", {}).get("spec") or {}
        by_node = self._pods_by_node(ds)
        min_ready = int(ds.get("spec", {}).get("minReadySeconds") or 0)
        desired = current = misscheduled = ready = available = updated = 0
        for node in nodes:
            pods = [p for p in by_node.get(name_of(node), []) if not is_terminal(p)]
            wanted = should_run(template_spec, node)
            desired += wanted
            if not pods:
                continue
            if wanted:
                current += 1
            else:
                misscheduled += 1
                continue
            pod = pods[0]
            ready += is_ready(pod)
            available += is_available(pod, min_ready)
            updated += (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) == revision
        status: Obj = {
            "currentNumberScheduled": current,
            "numberMisscheduled": misscheduled,
            "desiredNumberScheduled": desired,
            "numberReady": ready,
            "observedGeneration": ds["metadata"].get("generation", 1),
        }
        optional = {
            "updatedNumberScheduled": updated,
            "numberAvailable": available,
            "numberUnavailable": desired - available,
        }
        status.update({k: v for k, v in optional.items() if v > 0})

        def apply(obj: Obj) -> None:
            obj["status"] = status

        self.store.mutate(self._rt, namespace_of(ds), name_of(ds), apply, subresource="status")
