"""kube-controller-manager's garbage collector, over the dev cluster's store.

What it mirrors (Kubernetes docs, "Garbage Collection" and "Use Cascading Deletion"; the collector's
`attemptToDeleteItem` and `processDeletingDependentsItem`):
- a dependent names its owners in `metadata.ownerReferences`, matched by uid: an owner whose
  coordinates (apiVersion, kind, name; in the dependent's namespace when namespaced) hold no object of
  that uid is absent;
- a dependent is deleted only when none of its owners is present ("solid"); while one is, references
  to absent owners, and to owners waiting for their dependents, are removed from it instead;
- a dependent whose owners are all absent is deleted in the background; one whose owners are waiting
  (foreground deletion) and which has dependents of its own is deleted in the foreground, so the
  wait reaches down the chain;
- an owner in foreground deletion (`deletionTimestamp` and the `foregroundDeletion` finalizer) stays
  until no dependent with `blockOwnerDeletion: true` is left, then loses the finalizer and goes.

The real collector works from watches, after the API server answered; here a pass runs right after
each write, in the same call, which keeps the order of events (the owner first, then its dependents)
without a background task. Owners whose kind the server does not serve are left alone, as the real
collector retries them rather than guessing.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nufi_sandbox.devcluster.storage.store import Store

Obj = dict[str, Any]
FOREGROUND = "foregroundDeletion"

_SOLID, _ABSENT, _WAITING, _UNKNOWN = "solid", "absent", "waiting", "unknown"


class GarbageCollector:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._collecting = False
        self._again = False

    def collect(self) -> None:
        """Passes until nothing changes; a write made by a pass asks for another, not a nested one."""
        if self._collecting:
            self._again = True
            return
        self._collecting = True
        try:
            for _ in range(1000):
                self._again = False
                self._pass()
                if not self._again:
                    return
        finally:
            self._collecting = False

    # -- one pass ------------------------------------------------------------------------------------

    def _pass(self) -> None:
        store = self._store
        for key, obj in list(store.objects.items()):
            if store.objects.get(key) is obj and obj["metadata"].get("ownerReferences"):
                self._attempt_to_delete(key, obj)
        for key, obj in list(store.objects.items()):
            meta = obj["metadata"]
            deleting = store.objects.get(key) is obj and meta.get("deletionTimestamp")
            if deleting and FOREGROUND in (meta.get("finalizers") or []):
                self._finish_foreground(key, obj)

    def _attempt_to_delete(self, key: tuple[str, str, str, str], obj: Obj) -> None:
        store = self._store
        refs: list[Obj] = obj["metadata"]["ownerReferences"]
        states = [self._owner_state(ref, key[2]) for ref in refs]
        if _UNKNOWN in states:
            return
        if _SOLID in states:
            kept = [ref for ref, state in zip(refs, states, strict=True) if state == _SOLID]
            if len(kept) != len(refs):
                self._set_references(key, obj, kept)
            return
        if obj["metadata"].get("deletionTimestamp"):
            return  # already on its way out
        rt = store.registry.by_kind(obj["apiVersion"], obj["kind"])
        if rt is None:
            return
        waiting = _WAITING in states
        policy = "Foreground" if waiting and self._has_dependents(obj) else "Background"
        self._again = True
        store.delete(rt, key[2], key[3], propagation=policy)

    def _finish_foreground(self, key: tuple[str, str, str, str], owner: Obj) -> None:
        uid = owner["metadata"]["uid"]
        for dependent in self._store.objects.values():
            for ref in dependent["metadata"].get("ownerReferences") or []:
                if ref.get("uid") == uid and ref.get("blockOwnerDeletion"):
                    return
        rt = self._store.registry.by_kind(owner["apiVersion"], owner["kind"])
        if rt is None:
            return
        self._again = True
        self._store.drop_finalizer(rt, key, FOREGROUND)

    # -- reading the graph ---------------------------------------------------------------------------

    def _owner_state(self, ref: Obj, namespace: str) -> str:
        store = self._store
        rt = store.registry.by_kind(str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""))
        if rt is None:
            return _UNKNOWN
        owner = store.objects.get(
            (rt.group, rt.plural, namespace if rt.namespaced else "", ref.get("name", ""))
        )
        if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
            return _ABSENT
        meta = owner["metadata"]
        if meta.get("deletionTimestamp") and FOREGROUND in (meta.get("finalizers") or []):
            return _WAITING
        return _SOLID

    def _has_dependents(self, obj: Obj) -> bool:
        uid = obj["metadata"]["uid"]
        return any(
            ref.get("uid") == uid
            for other in self._store.objects.values()
            for ref in other["metadata"].get("ownerReferences") or []
        )

    def _set_references(self, key: tuple[str, str, str, str], obj: Obj, kept: list[Obj]) -> None:
        rt = self._store.registry.by_kind(obj["apiVersion"], obj["kind"])
        if rt is None:
            return
        new = copy.deepcopy(obj)
        if kept:
            new["metadata"]["ownerReferences"] = kept
        else:
            del new["metadata"]["ownerReferences"]
        self._again = True
        self._store.commit_modified(rt, key, new, obj)

    def orphan_dependents(self, owner: Obj) -> None:
        """The Orphan policy: every reference to `owner` is removed from its dependents."""
        uid = owner["metadata"]["uid"]
        for key, obj in list(self._store.objects.items()):
            refs = obj["metadata"].get("ownerReferences") or []
            if any(ref.get("uid") == uid for ref in refs):
                self._set_references(key, obj, [ref for ref in refs if ref.get("uid") != uid])
