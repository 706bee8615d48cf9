"""What preparing one ResourceClaim means for this driver: its results on this node, grouped by request."""

from __future__ import annotations

from typing import Any

from .config import DRIVER_NAME

Obj = dict[str, Any]


class PrepareError(Exception):
    """The claim cannot be prepared here; the message goes back to the kubelet as the claim's error."""


def devices_by_request(claim: Obj, *, uid: str, node: str, known: set[str]) -> dict[str, list[str]]:
    """Request name -> this driver's devices allocated to it in ``node``'s pool, in result order."""
    meta = claim.get("metadata") or {}
    if str(meta.get("uid")) != uid:
        raise PrepareError(
            f"claim {meta.get('namespace')}/{meta.get('name')} has uid {meta.get('uid')}, expected {uid}"
        )
    allocation = (claim.get("status") or {}).get("allocation")
    if not allocation:
        raise PrepareError(f"claim {meta.get('namespace')}/{meta.get('name')} is not allocated")
    grouped: dict[str, list[str]] = {}
    for result in (allocation.get("devices") or {}).get("results") or []:
        if result.get("driver") != DRIVER_NAME or result.get("pool") != node:
            continue
        device = str(result.get("device"))
        if device not in known:
            raise PrepareError(f"device {device} of pool {node} is not an LPU of this driver")
        grouped.setdefault(str(result.get("request")), []).append(device)
    return grouped
