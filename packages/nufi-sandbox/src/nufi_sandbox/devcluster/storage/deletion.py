"""The rules of the generic registry's delete path that need no store: preconditions, whether an
object waits before it goes, and the marks a waiting object carries.

An object waits when it has finalizers, when it is deleted in the foreground (the
`foregroundDeletion` finalizer holds it until its blocking dependents are gone), or when it is a
bound, running pod and a kubelet is simulated to terminate it within its grace period.
"""

from __future__ import annotations

import copy
from typing import Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceType
from nufi_sandbox.devcluster.storage.garbage import FOREGROUND

Obj = dict[str, Any]


def check_preconditions(
    rt: ResourceType, name: str, obj: Obj, uid: str | None, resource_version: str | None
) -> None:
    """409 when the delete's preconditions (uid, resourceVersion) do not hold for the stored object."""
    if uid and uid != obj["metadata"]["uid"]:
        raise errors.ApiError(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on {rt.plural} "{name}": Precondition failed: '
            f"UID in precondition: {uid}, UID in object meta: {obj['metadata']['uid']}",
        )
    if resource_version and resource_version != obj["metadata"]["resourceVersion"]:
        raise errors.conflict(rt, name)


def terminates_gracefully(
    rt: ResourceType, obj: Obj, grace_period: int | None, *, kubelet_simulated: bool
) -> bool:
    """A bound pod that has not finished goes through its kubelet, unless told to go at once (0)."""
    return bool(
        rt.key == ("", "pods")
        and kubelet_simulated
        and obj.get("spec", {}).get("nodeName")
        and obj.get("status", {}).get("phase") not in ("Succeeded", "Failed")
        and (grace_period if grace_period is not None else 1) > 0
    )


def marked_deleting(obj: Obj, *, now: str, graceful: bool, grace_period: int | None) -> Obj:
    """A copy of an object that waits for its finalizers or its kubelet, marked deleted at `now`."""
    new = copy.deepcopy(obj)
    if graceful:
        seconds = (
            grace_period
            if grace_period is not None
            else obj.get("spec", {}).get("terminationGracePeriodSeconds", 30)
        )
    else:
        seconds = 0
    new["metadata"]["deletionTimestamp"] = now
    new["metadata"]["deletionGracePeriodSeconds"] = seconds
    return new


def marked_foreground(obj: Obj, *, now: str) -> Obj:
    """A copy of an object deleted in the foreground (at `now`, unless it already was): a
    deletionTimestamp and the `foregroundDeletion` finalizer, which holds it until the collector has
    removed the dependents that block it."""
    new = copy.deepcopy(obj)
    meta = new["metadata"]
    meta.setdefault("deletionTimestamp", now)
    meta.setdefault("deletionGracePeriodSeconds", 0)
    if FOREGROUND not in (meta.get("finalizers") or []):
        meta["finalizers"] = [*(meta.get("finalizers") or []), FOREGROUND]
    return new
