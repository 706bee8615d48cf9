"""The dev cluster's object store: etcd plus the generic registry logic of the real API server.

Every mutation runs without awaiting, so within one event loop each call is atomic and needs no lock.
A single counter gives every write a resourceVersion; a bounded history lets watches resume from one
and answers 410 Gone when the requested version has fallen out of it, as etcd compaction does.
"""

from __future__ import annotations

import copy
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceRegistry, ResourceType
from nufi_sandbox.devcluster.storage.continue_tokens import decode_continue, encode_continue
from nufi_sandbox.devcluster.storage.deletion import (
    check_preconditions,
    marked_deleting,
    marked_foreground,
    terminates_gracefully,
)
from nufi_sandbox.devcluster.storage.garbage import GarbageCollector
from nufi_sandbox.devcluster.storage.object_writes import merge_for_subresource, unchanged
from nufi_sandbox.devcluster.storage.watch_events import Subscription, WatchEvent
from nufi_sandbox.devcluster.validation.admission import Admission

__all__ = ["INITIAL_NAMESPACES", "Obj", "Store", "Subscription", "WatchEvent", "now_rfc3339"]

Obj = dict[str, Any]
Key = tuple[str, str, str, str]  # group, plural, namespace, name

INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Store:
    def __init__(self, registry: ResourceRegistry, *, history_size: int = 5000) -> None:
        self.registry = registry
        self._objects: dict[Key, Obj] = {}
        self._rv = 0
        self._history: deque[WatchEvent] = deque(maxlen=history_size)
        self._subscriptions: set[Subscription] = set()
        self.admission = Admission(self)
        self.garbage = GarbageCollector(self)
        # Bound pods terminate through the kubelet only when one is simulated; otherwise they go at once.
        self.graceful_pod_deletion = False
        for name in INITIAL_NAMESPACES:
            self.create(self.rt("", "v1", "namespaces"), "", {"metadata": {"name": name}})

    # -- lookups -------------------------------------------------------------------------------------

    def rt(self, group: str, version: str, plural: str) -> ResourceType:
        found = self.registry.lookup(group, version, plural)
        if found is None:
            raise errors.route_not_found()
        return found

    @property
    def objects(self) -> dict[Key, Obj]:
        """Every stored object by key: for the garbage collector, which must not mutate them."""
        return self._objects

    @property
    def resource_version(self) -> int:
        return self._rv

    def get(self, rt: ResourceType, namespace: str, name: str) -> Obj:
        obj = self._objects.get(self._key(rt, namespace, name))
        if obj is None:
            raise errors.not_found(rt, name)
        return self._view(rt, obj)

    def find(self, rt: ResourceType, namespace: str, name: str) -> Obj | None:
        obj = self._objects.get(self._key(rt, namespace, name))
        return None if obj is None else self._view(rt, obj)

    def list(
        self,
        rt: ResourceType,
        namespace: str | None,
        *,
        predicate: Callable[[Obj], bool] | None = None,
        limit: int = 0,
        continue_token: str = "",
    ) -> tuple[list[Obj], str, int]:
        """Items sorted by namespace/name (etcd key order), the next continue token, the list rv."""
        start = ""
        list_rv = self._rv
        if continue_token:
            start, list_rv = decode_continue(continue_token)
        keys = sorted(
            key for key in self._objects if key[:2] == rt.key and (namespace is None or key[2] == namespace)
        )
        items: list[Obj] = []
        token = ""
        for key in keys:
            path = f"{key[2]}/{key[3]}"
            if start and path <= start:
                continue
            obj = self._objects[key]
            if predicate is not None and not predicate(obj):
                continue
            if limit and len(items) == limit:
                last = items[-1]["metadata"]
                token = encode_continue(list_rv, f"{last.get('namespace', '')}/{last['name']}")
                break
            items.append(self._view(rt, obj))
        return items, token, list_rv

    def all_of(self, group: str, plural: str) -> Iterable[Obj]:
        """Raw read access for in-process controllers; callers must not mutate what they get."""
        return [obj for key, obj in self._objects.items() if key[:2] == (group, plural)]

    # -- writes --------------------------------------------------------------------------------------

    def create(self, rt: ResourceType, namespace: str, body: Obj, *, dry_run: bool = False) -> Obj:
        obj = copy.deepcopy(body)
        meta = obj.setdefault("metadata", {})
        if rt.namespaced:
            if meta.get("namespace") not in (None, "", namespace):
                raise errors.bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            if self._key(self.rt("", "v1", "namespaces"), "", namespace) not in self._objects:
                raise errors.namespace_missing(namespace)
            ns_obj = self._objects[self._key(self.rt("", "v1", "namespaces"), "", namespace)]
            if ns_obj.get("metadata", {}).get("deletionTimestamp"):
                raise errors.ApiError(
                    403,
                    "Forbidden",
                    f'{rt.plural} "{meta.get("name", "")}" is forbidden: unable to create new content in '
                    f"namespace {namespace} because it is being terminated",
                )
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + uuid.uuid4().hex[:5]
        obj["apiVersion"], obj["kind"] = rt.api_version, rt.kind
        self.admission.on_create(rt, obj)
        name = meta["name"]
        key = self._key(rt, namespace, name)
        if key in self._objects:
            raise errors.already_exists(rt, name)
        meta.update(
            uid=str(uuid.uuid4()),
            creationTimestamp=now_rfc3339(),
        )
        meta.pop("deletionTimestamp", None)
        meta.pop("resourceVersion", None)
        if "spec" in obj or rt.subresources:
            meta["generation"] = 1
        if dry_run:
            return obj
        self._commit("ADDED", rt, key, obj, None)
        view = self._view(rt, obj)
        if meta.get("ownerReferences"):
            # An owner that is already gone (no object of that uid) makes the new object garbage.
            self.garbage.collect()
        return view

    def update(
        self,
        rt: ResourceType,
        namespace: str,
        name: str,
        body: Obj,
        *,
        subresource: str = "",
        dry_run: bool = False,
    ) -> Obj:
        key = self._key(rt, namespace, name)
        old = self._objects.get(key)
        if old is None:
            raise errors.not_found(rt, name)
        new = copy.deepcopy(body)
        meta = new.setdefault("metadata", {})
        if meta.get("name", name) != name:
            raise errors.bad_request(
                f"the name of the object ({meta.get('name')}) does not match the name on the URL ({name})"
            )
        requested_rv = meta.get("resourceVersion")
        if requested_rv and requested_rv != old["metadata"]["resourceVersion"]:
            raise errors.conflict(rt, name)
        new = merge_for_subresource(rt, old, new, subresource)
        self.admission.on_update(rt, old, new, subresource)
        if dry_run:
            return new
        if new["metadata"].get("deletionTimestamp") and not new["metadata"].get("finalizers"):
            self._remove(rt, key, new)
            self.garbage.collect()
            return self._view(rt, new)
        if unchanged(old, new):
            return self._view(rt, old)
        self._commit("MODIFIED", rt, key, new, old)
        view = self._view(rt, new)
        if new["metadata"].get("ownerReferences") != old["metadata"].get("ownerReferences"):
            self.garbage.collect()
        return view

    def mutate(
        self,
        rt: ResourceType,
        namespace: str,
        name: str,
        change: Callable[[Obj], None],
        *,
        subresource: str = "",
    ) -> Obj:
        """Read-modify-write with no chance of conflict: for in-process controllers."""
        current = self.get(rt, namespace, name)
        change(current)
        return self.update(rt, namespace, name, current, subresource=subresource)

    def bind(self, namespace: str, name: str, node: str) -> Obj:
        """The pods/binding subresource: the one way a pod gets its node after creation."""
        rt = self.rt("", "v1", "pods")
        pod = self.get(rt, namespace, name)
        if pod.get("spec", {}).get("nodeName"):
            raise errors.ApiError(
                409,
                "Conflict",
                f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is '
                f'already assigned to node "{pod["spec"]["nodeName"]}"',
            )
        pod["spec"]["nodeName"] = node
        return self.update(rt, namespace, name, pod, subresource="binding")

    def delete(
        self,
        rt: ResourceType,
        namespace: str,
        name: str,
        *,
        propagation: str = "Background",
        grace_period: int | None = None,
        precondition_uid: str | None = None,
        precondition_rv: str | None = None,
        dry_run: bool = False,
    ) -> Obj:
        key = self._key(rt, namespace, name)
        obj = self._objects.get(key)
        if obj is None:
            raise errors.not_found(rt, name)
        check_preconditions(rt, name, obj, precondition_uid, precondition_rv)
        if dry_run:
            return self._view(rt, obj)
        if rt.key == ("", "namespaces"):
            self._delete_namespace_contents(name)
        if propagation == "Orphan":
            # The real server puts the `orphan` finalizer on the owner and the collector takes the
            # references off its dependents before removing it; here both happen now, in that order.
            self.garbage.orphan_dependents(obj)
        meta = obj["metadata"]
        graceful = terminates_gracefully(rt, obj, grace_period, kubelet_simulated=self.graceful_pod_deletion)
        if propagation == "Foreground" and not graceful:
            return self._delete_in_foreground(rt, key, obj)
        if meta.get("finalizers") or graceful:
            if meta.get("deletionTimestamp"):
                return self._view(rt, obj)
            new = marked_deleting(obj, now=now_rfc3339(), graceful=graceful, grace_period=grace_period)
            # Background: its dependents go once it is gone, not while it waits for its finalizers.
            self._commit("MODIFIED", rt, key, new, obj)
            return self._view(rt, new)
        self._remove(rt, key, obj)
        self.garbage.collect()
        return self._view(rt, obj)

    def _delete_in_foreground(self, rt: ResourceType, key: Key, obj: Obj) -> Obj:
        """Foreground: the object stays, with a deletionTimestamp and the `foregroundDeletion`
        finalizer, until the collector has removed the dependents that block it; then it goes."""
        new = marked_foreground(obj, now=now_rfc3339())
        if new != obj:
            self._commit("MODIFIED", rt, key, new, obj)
        self.garbage.collect()
        current = self._objects.get(key)
        return self._view(rt, current if current is not None else new)

    def commit_modified(self, rt: ResourceType, key: Key, new: Obj, old: Obj) -> None:
        """A write by an in-process controller (the garbage collector) of an object it read."""
        self._commit("MODIFIED", rt, key, new, old)

    def drop_finalizer(self, rt: ResourceType, key: Key, finalizer: str) -> None:
        """Remove one finalizer; an object being deleted whose last finalizer this was goes."""
        old = self._objects[key]
        new = copy.deepcopy(old)
        kept = [f for f in new["metadata"].get("finalizers") or [] if f != finalizer]
        if kept:
            new["metadata"]["finalizers"] = kept
        else:
            new["metadata"].pop("finalizers", None)
        if not kept and new["metadata"].get("deletionTimestamp"):
            self._remove(rt, key, new)
        else:
            self._commit("MODIFIED", rt, key, new, old)

    # -- watch ---------------------------------------------------------------------------------------

    def subscribe(self, since_rv: int | None = None) -> Subscription:
        """Events after since_rv (None: from now on). Raises 410 Gone when history no longer covers it."""
        sub = Subscription()
        if since_rv is not None and since_rv < self._rv:
            oldest = self._history[0].rv if self._history else self._rv + 1
            if since_rv < oldest - 1:
                raise errors.gone(f"too old resource version: {since_rv} ({oldest - 1})")
            for event in self._history:
                if event.rv > since_rv:
                    sub.queue.put_nowait(event)
        self._subscriptions.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        sub.closed = True
        self._subscriptions.discard(sub)

    # -- internals -----------------------------------------------------------------------------------

    @staticmethod
    def _key(rt: ResourceType, namespace: str, name: str) -> Key:
        return (rt.group, rt.plural, namespace if rt.namespaced else "", name)

    @staticmethod
    def _view(rt: ResourceType, obj: Obj) -> Obj:
        view = copy.deepcopy(obj)
        # One stored object answers to every served version of its type.
        view["apiVersion"] = rt.api_version
        return view

    def _commit(self, kind: str, rt: ResourceType, key: Key, obj: Obj, old: Obj | None) -> None:
        self._rv += 1
        obj["metadata"]["resourceVersion"] = str(self._rv)
        self._objects[key] = obj
        if rt.key == ("apiextensions.k8s.io", "customresourcedefinitions"):
            self._on_crd_change(obj)
        self._emit(WatchEvent(kind, rt.key, key[2], copy.deepcopy(obj), old, self._rv))

    def _remove(self, rt: ResourceType, key: Key, obj: Obj) -> None:
        self._objects.pop(key, None)
        self._rv += 1
        final = copy.deepcopy(obj)
        final["metadata"]["resourceVersion"] = str(self._rv)
        if rt.key == ("apiextensions.k8s.io", "customresourcedefinitions"):
            self._drop_custom_resources(obj)
        self._emit(WatchEvent("DELETED", rt.key, key[2], final, obj, self._rv))

    def _emit(self, event: WatchEvent) -> None:
        self._history.append(event)
        for sub in list(self._subscriptions):
            sub.queue.put_nowait(event)
        self.admission.quota.observe(event)

    def _on_crd_change(self, crd: Obj) -> None:
        if crd["metadata"].get("deletionTimestamp"):
            return
        self.registry.register_crd(crd)
        names = crd.get("spec", {}).get("names", {})
        crd["status"] = {
            "acceptedNames": names,
            "storedVersions": [v["name"] for v in crd["spec"].get("versions", []) if v.get("storage")],
            "conditions": [
                {
                    "type": "NamesAccepted",
                    "status": "True",
                    "reason": "NoConflicts",
                    "message": "no conflicts found",
                    "lastTransitionTime": now_rfc3339(),
                },
                {
                    "type": "Established",
                    "status": "True",
                    "reason": "InitialNamesAccepted",
                    "message": "the initial names have been accepted",
                    "lastTransitionTime": now_rfc3339(),
                },
            ],
        }

    def _drop_custom_resources(self, crd: Obj) -> None:
        spec = crd.get("spec", {})
        self.registry.unregister_crd(crd["metadata"]["name"])
        storage = (spec.get("group", ""), spec.get("names", {}).get("plural", ""))
        for key in [k for k in self._objects if k[:2] == storage]:
            self._objects.pop(key)

    def _delete_namespace_contents(self, namespace: str) -> None:
        for key in [k for k in self._objects if k[2] == namespace]:
            obj = self._objects.get(key)
            if obj is None:
                continue
            rt = self.registry.by_kind(obj["apiVersion"], obj["kind"])
            if rt is not None:
                self._remove(rt, key, obj)
