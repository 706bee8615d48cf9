"""What an update may change in a stored object: the rules of the generic registry's update path.

Fields the server owns (uid, creation time, generation...) survive any body, a subresource write
touches only its part, and `generation` counts changes to anything but metadata and status.
"""

from __future__ import annotations

import copy
from typing import Any

from nufi_sandbox.devcluster.resources import ResourceType

Obj = dict[str, Any]


def unchanged(old: Obj, new: Obj) -> bool:
    """True when a write would change nothing but the resourceVersion: no event, no new version."""
    strip = {**new, "metadata": {k: v for k, v in new["metadata"].items() if k != "resourceVersion"}}
    base = {**old, "metadata": {k: v for k, v in old["metadata"].items() if k != "resourceVersion"}}
    return strip == base


def merge_for_subresource(rt: ResourceType, old: Obj, new: Obj, subresource: str) -> Obj:
    """Status writes change only status; main writes never change status where a subresource owns it."""
    merged = copy.deepcopy(old)
    if subresource == "status":
        if "status" in new:
            merged["status"] = new["status"]
        else:
            merged.pop("status", None)
        return merged
    if subresource == "binding":
        merged.setdefault("spec", {})["nodeName"] = new.get("spec", {}).get("nodeName")
        return merged
    result = new
    result["apiVersion"], result["kind"] = old["apiVersion"], old["kind"]
    meta = result["metadata"]
    for fixed in (
        "uid",
        "creationTimestamp",
        "namespace",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
    ):
        if fixed in old["metadata"]:
            meta[fixed] = old["metadata"][fixed]
        else:
            meta.pop(fixed, None)
    meta["name"] = old["metadata"]["name"]
    if "status" in rt.subresources:
        if "status" in old:
            result["status"] = copy.deepcopy(old["status"])
        else:
            result.pop("status", None)
    spec_old = {k: v for k, v in old.items() if k not in ("metadata", "status")}
    spec_new = {k: v for k, v in result.items() if k not in ("metadata", "status")}
    if "generation" in meta and spec_old != spec_new:
        meta["generation"] += 1
    return result
