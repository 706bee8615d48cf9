"""An in-process dev cluster for simulation tests: a Store and a Simulation in the test's event loop."""

from __future__ import annotations

import copy
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nufi_sandbox.devcluster.patching.merge_keys import merge_keys_for
from nufi_sandbox.devcluster.patching.strategic_merge import apply_strategic_merge_patch
from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.sim import NodeSpec, Simulation
from nufi_sandbox.devcluster.storage.store import Store

Obj = dict[str, Any]

KINDS = {
    "Pod": ("", "v1", "pods"),
    "Node": ("", "v1", "nodes"),
    "Service": ("", "v1", "services"),
    "Event": ("", "v1", "events"),
    "Lease": ("coordination.k8s.io", "v1", "leases"),
    "Deployment": ("apps", "v1", "deployments"),
    "ReplicaSet": ("apps", "v1", "replicasets"),
    "StatefulSet": ("apps", "v1", "statefulsets"),
    "DaemonSet": ("apps", "v1", "daemonsets"),
    "EndpointSlice": ("discovery.k8s.io", "v1", "endpointslices"),
    "PersistentVolumeClaim": ("", "v1", "persistentvolumeclaims"),
    "ResourceQuota": ("", "v1", "resourcequotas"),
}


@dataclass
class SimCluster:
    store: Store
    sim: Simulation
    state_dir: Path

    def rt(self, kind: str) -> Any:
        return self.store.rt(*KINDS[kind])

    def create(self, kind: str, body: Obj, namespace: str = "default") -> Obj:
        return self.store.create(self.rt(kind), namespace, copy.deepcopy(body))

    def get(self, kind: str, name: str, namespace: str = "default") -> Obj:
        return self.store.get(self.rt(kind), namespace if self.rt(kind).namespaced else "", name)

    def find(self, kind: str, name: str, namespace: str = "default") -> Obj | None:
        return self.store.find(self.rt(kind), namespace if self.rt(kind).namespaced else "", name)

    def list_of(self, kind: str, namespace: str | None = "default", **labels: str) -> list[Obj]:
        items, _, _ = self.store.list(
            self.rt(kind),
            namespace if self.rt(kind).namespaced else None,
            predicate=lambda o: all(
                (o["metadata"].get("labels") or {}).get(k) == v for k, v in labels.items()
            ),
        )
        return items

    def delete(self, kind: str, name: str, namespace: str = "default") -> Obj:
        return self.store.delete(self.rt(kind), namespace, name)

    def mutate(
        self,
        kind: str,
        name: str,
        change: Callable[[Obj], None],
        *,
        namespace: str = "default",
        subresource: str = "",
    ) -> Obj:
        return self.store.mutate(self.rt(kind), namespace, name, change, subresource=subresource)

    def set_pod_condition(self, name: str, kind: str, status: str, namespace: str = "default") -> Obj:
        """PATCH pods/<name>/status with a strategic merge patch that adds or changes one condition."""
        patch = {
            "status": {
                "conditions": [
                    {"type": kind, "status": status, "lastTransitionTime": "2024-01-01T00:00:00Z"},
                ]
            }
        }
        current = self.get("Pod", name, namespace)
        merged = apply_strategic_merge_patch(current, patch, merge_keys_for("Pod"))
        return self.store.update(self.rt("Pod"), namespace, name, merged, subresource="status")

    def events_for(self, name: str, reason: str, namespace: str = "default") -> list[Obj]:
        return [
            e
            for e in self.list_of("Event", namespace)
            if e["involvedObject"]["name"] == name and e["reason"] == reason
        ]


class SimClusters:
    """Starts clusters on demand and stops every one of them at the end of the test."""

    def __init__(self) -> None:
        self._started: list[SimCluster] = []

    async def start(self, nodes: Sequence[NodeSpec] | None = None, **options: Any) -> SimCluster:
        store = Store(ResourceRegistry.with_builtins())
        state_dir = Path(tempfile.mkdtemp(prefix="sim-", dir="/tmp"))
        sim = Simulation(store, nodes=nodes, state_dir=state_dir, **options)
        cluster = SimCluster(store, sim, state_dir)
        self._started.append(cluster)
        await sim.start()
        return cluster

    async def stop_all(self) -> None:
        for cluster in self._started:
            await cluster.sim.stop()
            shutil.rmtree(cluster.state_dir, ignore_errors=True)
        self._started.clear()
