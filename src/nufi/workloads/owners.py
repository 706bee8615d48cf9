"""Owner references: a workload's parts name their top object, so the cluster's garbage collector
removes them with it (kube-controller-manager deletes a dependent once every owner it names, matched
by uid, is gone), and a part whose top object never came to be is collected too."""

from __future__ import annotations

from typing import Any

from nufi.cluster.kube_rest import Json


def owner_reference(owner: Json) -> dict[str, Any]:
    """A reference to `owner` as the API server returned it (its uid is what the collector matches).

    Not a controller reference, and not blocking: no controller adopts these parts, and
    `blockOwnerDeletion` would ask for permission on the owner's finalizers that NuFi does not need."""
    metadata = owner.get("metadata") or {}
    return {
        "apiVersion": str(owner.get("apiVersion") or ""),
        "kind": str(owner.get("kind") or ""),
        "name": str(metadata.get("name") or ""),
        "uid": str(metadata.get("uid") or ""),
    }


def owned_by(body: Json, owner: Json) -> Json:
    """`body` with `owner` as its (only) owner."""
    metadata = dict(body.get("metadata") or {})
    metadata["ownerReferences"] = [owner_reference(owner)]
    return {**body, "metadata": metadata}
