"""The controllers of one workload kind (Deployment, ReplicaSet, StatefulSet, DaemonSet) share routing.

An event of a workload queues that workload; an event of an object it controls (a pod, or a
Deployment's ReplicaSet) queues the controlling workload, found through the controller reference.
"""

from __future__ import annotations

from collections.abc import Iterable

from nufi_sandbox.devcluster.sim.controller import Controller, ObjectKey
from nufi_sandbox.devcluster.sim.meta import Obj, is_deleting, name_of, namespace_of, owner_key
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent


class WorkloadController(Controller[ObjectKey]):
    """Subclasses name their kind (`group`, `plural`, `kind`) and what it controls (`owned`)."""

    group = "apps"
    plural = ""
    kind = ""
    owned: tuple[str, str] = ("", "pods")
    resync_seconds = 5.0

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._rt = store.rt(self.group, "v1", self.plural)
        self._failures: dict[ObjectKey, int] = {}

    def back_off(self, key: ObjectKey, failed: bool) -> None:
        """A failed sync comes back after the work queue's per-item backoff (5 ms, doubling); the
        resync bounds it at `resync_seconds` here, where the real limit is 1000 s."""
        if not failed:
            self._failures.pop(key, None)
            return
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        self.queue.add_after(key, min(0.005 * 2**failures, self.resync_seconds))

    def keys_for(self, event: WatchEvent) -> Iterable[ObjectKey]:
        if event.rt_key == (self.group, self.plural):
            yield (event.namespace, name_of(event.object))
        elif event.rt_key == self.owned:
            for obj in (event.object, event.old):
                key = owner_key(obj, self.kind)
                if key is not None:
                    yield key

    def all_keys(self) -> Iterable[ObjectKey]:
        for workload in self.store.all_of(self.group, self.plural):
            yield (namespace_of(workload), name_of(workload))

    def live_workload(self, key: ObjectKey) -> Obj | None:
        """The workload behind `key`, or None once it is gone or being deleted: nothing to do then."""
        namespace, name = key
        workload = self.store.find(self._rt, namespace, name)
        return None if workload is None or is_deleting(workload) else workload
