"""The dev cluster's garbage collector against Kubernetes' semantics.

Each test states the fact it holds the store to, from the Kubernetes documentation: "Garbage
Collection" (kubernetes.io/docs/concepts/architecture/garbage-collection/) and "Use Cascading
Deletion" (kubernetes.io/docs/tasks/administer-cluster/use-cascading-deletion/), and
"Owners and Dependents" (kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/).
"""

from __future__ import annotations

from typing import Any

import pytest

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceRegistry, ResourceType
from nufi_sandbox.devcluster.storage.store import Store

Obj = dict[str, Any]
NS = "default"
HOLD = "example.com/hold"


@pytest.fixture
def store() -> Store:
    return Store(ResourceRegistry.with_builtins())


def cm(store: Store) -> ResourceType:
    return store.rt("", "v1", "configmaps")


def ref(owner: Obj, *, block: bool = False) -> Obj:
    meta = owner["metadata"]
    found: Obj = {"apiVersion": "v1", "kind": "ConfigMap", "name": meta["name"], "uid": meta["uid"]}
    if block:
        found["blockOwnerDeletion"] = True
    return found


def make(store: Store, name: str, *owners: Obj, finalizers: tuple[str, ...] = ()) -> Obj:
    metadata: Obj = {"name": name}
    if owners:
        metadata["ownerReferences"] = list(owners)
    if finalizers:
        metadata["finalizers"] = list(finalizers)
    return store.create(cm(store), NS, {"metadata": metadata, "data": {}})


def present(store: Store, name: str) -> Obj | None:
    return store.find(cm(store), NS, name)


def release(store: Store, name: str) -> None:
    """Remove the test's finalizer, as the controller that set it would."""
    current = store.get(cm(store), NS, name)
    current["metadata"]["finalizers"] = [f for f in current["metadata"]["finalizers"] if f != HOLD]
    store.update(cm(store), NS, name, current)


def test_background_deletes_the_owner_at_once_and_its_dependents_afterwards(store: Store) -> None:
    """ "Background cascading deletion: the Kubernetes API server deletes the owner object immediately
    and the garbage collector controller cleans up the dependent objects in the background." The
    default propagation policy is background."""
    owner = make(store, "owner")
    make(store, "dependent", ref(owner))
    events = store.subscribe()
    store.delete(cm(store), NS, "owner")
    assert present(store, "owner") is None and present(store, "dependent") is None
    deleted = []
    while not events.queue.empty():
        event = events.queue.get_nowait()
        if event.type == "DELETED":
            deleted.append(event.object["metadata"]["name"])
    assert deleted == ["owner", "dependent"]


def test_background_waits_for_an_owner_kept_by_its_finalizers(store: Store) -> None:
    """Dependents go when their owner is gone: an owner kept by a finalizer is still there (with a
    deletionTimestamp), so its dependents stay until it is removed."""
    owner = make(store, "owner", finalizers=(HOLD,))
    make(store, "dependent", ref(owner))
    store.delete(cm(store), NS, "owner")
    assert present(store, "dependent") is not None
    release(store, "owner")
    assert present(store, "owner") is None and present(store, "dependent") is None


def test_foreground_keeps_the_owner_visible_until_blocking_dependents_are_gone(store: Store) -> None:
    """ "Foreground cascading deletion: the owner object you're deleting first enters a deletion in
    progress state": the API server sets its metadata.deletionTimestamp and adds the
    foregroundDeletion finalizer, and the object stays visible through the API until the controller
    has deleted the dependents with ownerReference.blockOwnerDeletion=true; then it deletes the owner."""
    owner = make(store, "owner")
    make(store, "dependent", ref(owner, block=True), finalizers=(HOLD,))
    store.delete(cm(store), NS, "owner", propagation="Foreground")
    waiting = present(store, "owner")
    assert waiting is not None
    assert waiting["metadata"]["deletionTimestamp"]
    assert "foregroundDeletion" in waiting["metadata"]["finalizers"]
    dependent = present(store, "dependent")
    assert dependent is not None and dependent["metadata"].get("deletionTimestamp"), "not deleted"
    release(store, "dependent")
    assert present(store, "dependent") is None
    assert present(store, "owner") is None


def test_foreground_does_not_wait_for_dependents_that_do_not_block(store: Store) -> None:
    """Only dependents with blockOwnerDeletion=true hold the owner back; the others are deleted too,
    but the owner goes without waiting for them."""
    owner = make(store, "owner")
    make(store, "dependent", ref(owner), finalizers=(HOLD,))
    store.delete(cm(store), NS, "owner", propagation="Foreground")
    assert present(store, "owner") is None
    dependent = present(store, "dependent")
    assert dependent is not None and dependent["metadata"].get("deletionTimestamp")


def test_orphan_leaves_the_dependents_without_the_reference(store: Store) -> None:
    """ "Orphaned dependents": with propagationPolicy Orphan the owner is deleted and the garbage
    collector removes the owner's references from its dependents, which remain."""
    owner = make(store, "owner")
    other = make(store, "other")
    make(store, "dependent", ref(owner), ref(other))
    store.delete(cm(store), NS, "owner", propagation="Orphan")
    dependent = present(store, "dependent")
    assert present(store, "owner") is None and dependent is not None
    assert [r["name"] for r in dependent["metadata"]["ownerReferences"]] == ["other"]


def test_a_dependent_with_several_owners_goes_only_when_all_are_gone(store: Store) -> None:
    """A dependent with several owners is deleted only when every owner is gone; while one remains,
    the references to the absent ones are removed instead ("Owners and Dependents")."""
    first, second = make(store, "first"), make(store, "second")
    make(store, "dependent", ref(first), ref(second))
    store.delete(cm(store), NS, "first")
    dependent = present(store, "dependent")
    assert dependent is not None
    assert [r["name"] for r in dependent["metadata"]["ownerReferences"]] == ["second"]
    store.delete(cm(store), NS, "second")
    assert present(store, "dependent") is None


def test_a_reference_to_an_absent_uid_makes_the_dependent_garbage(store: Store) -> None:
    """Owners are matched by uid: a dependent whose owner reference names no existing object (or an
    object of that name with another uid: a new object, not its owner) is collected."""
    make(store, "orphaned", {"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": "0000"})
    assert present(store, "orphaned") is None
    make(store, "owner")
    make(store, "stale", {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "1111"})
    assert present(store, "stale") is None
    assert present(store, "owner") is not None


def test_foreground_reaches_down_a_chain_of_owners(store: Store) -> None:
    """A dependent that is itself an owner, deleted because of a foreground deletion, is deleted in
    the foreground too, so the top object waits for the whole blocking chain."""
    top = make(store, "top")
    middle = make(store, "middle", ref(top, block=True))
    make(store, "bottom", ref(middle, block=True), finalizers=(HOLD,))
    store.delete(cm(store), NS, "top", propagation="Foreground")
    assert present(store, "top") is not None and present(store, "middle") is not None
    release(store, "bottom")
    assert [present(store, n) for n in ("top", "middle", "bottom")] == [None, None, None]


def test_deleting_a_missing_object_is_not_found(store: Store) -> None:
    with pytest.raises(errors.ApiError) as raised:
        store.delete(cm(store), NS, "absent", propagation="Foreground")
    assert raised.value.code == 404
