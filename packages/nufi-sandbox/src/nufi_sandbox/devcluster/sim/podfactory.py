"""Creating and deleting the pods of a workload, with the events the real controllers record."""

from __future__ import annotations

import copy
from collections.abc import Mapping

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import Obj, controller_ref, name_of, namespace_of, random_suffix
from nufi_sandbox.devcluster.storage.store import Store


class PodFactory:
    def __init__(
        self, store: Store, events: EventRecorder, component: str, *, stateful: bool = False
    ) -> None:
        self._store = store
        self._events = events
        self._component = component
        # The statefulset-controller words its pod events its own way (StatefulPodControl.recordPodEvent).
        self._stateful = stateful
        self._pods = store.rt("", "v1", "pods")

    def pod_from_template(
        self,
        owner: Obj,
        *,
        name: str | None = None,
        extra_labels: Mapping[str, str] | None = None,
    ) -> Obj:
        template = owner.get("spec", {}).get("template", {})
        meta = template.get("metadata") or {}
        labels = {**(meta.get("labels") or {}), **(extra_labels or {})}
        metadata: Obj = {"labels": labels, "ownerReferences": [controller_ref(owner)]}
        if meta.get("annotations"):
            metadata["annotations"] = dict(meta["annotations"])
        if name is None:
            metadata["generateName"] = f"{name_of(owner)}-"
        else:
            metadata["name"] = name
        return {"metadata": metadata, "spec": copy.deepcopy(template.get("spec") or {})}

    def create(self, owner: Obj, pod: Obj) -> Obj | errors.ApiError:
        """Create the pod; on refusal record FailedCreate and return the refusal (the caller retries)."""
        namespace = namespace_of(owner)
        meta = pod["metadata"]
        try:
            if "name" in meta:
                created = self._store.create(self._pods, namespace, pod)
            else:
                created = self._create_generated(namespace, pod)
        except errors.ApiError as exc:
            self._record(owner, "Warning", "FailedCreate", meta.get("name", ""), exc.message)
            return exc
        self._record(owner, "Normal", "SuccessfulCreate", name_of(created), None)
        return created

    def _record(self, owner: Obj, kind: str, reason: str, pod: str, error: str | None) -> None:
        """The event of one create, worded as the owner's real controller words it."""
        if self._stateful:
            outcome = "successful" if error is None else f"failed error: {error}"
            message = f"create Pod {pod} in StatefulSet {name_of(owner)} {outcome}"
        else:
            message = f"Created pod: {pod}" if error is None else f"Error creating: {error}"
        self._events.record(owner, kind, reason, message, component=self._component)

    def _create_generated(self, namespace: str, pod: Obj) -> Obj:
        prefix = pod["metadata"]["generateName"]
        for _ in range(8):
            attempt = copy.deepcopy(pod)
            attempt["metadata"]["name"] = f"{prefix}{random_suffix()}"
            try:
                return self._store.create(self._pods, namespace, attempt)
            except errors.ApiError as exc:
                if exc.reason != "AlreadyExists":
                    raise
        raise errors.ApiError(409, "AlreadyExists", f"no free name with prefix {prefix!r}")

    def delete(self, owner: Obj, pod: Obj) -> None:
        try:
            self._store.delete(self._pods, namespace_of(pod), name_of(pod))
        except errors.ApiError:
            return
        if self._stateful:
            message = f"delete Pod {name_of(pod)} in StatefulSet {name_of(owner)} successful"
        else:
            message = f"Deleted pod: {name_of(pod)}"
        self._events.record(owner, "Normal", "SuccessfulDelete", message, component=self._component)
