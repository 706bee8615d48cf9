"""The resource.k8s.io/v1 objects as the API server stores them: their limits and their defaults.

Limits are upstream's constants (`k8s.io/api/resource/v1`); defaulting is what `SetDefaults_*` does to a
request on create (`allocationMode: ExactCount`, `count: 1`), so a client reads back what a real cluster
would have stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Obj = dict[str, Any]

DRA_GROUP = "resource.k8s.io"
DRA_KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice")

DRIVER_NAME_MAX = 63
POOL_NAME_MAX = 253
DEVICE_MAX_DOMAIN = 63
DEVICE_MAX_ID = 32
ATTRIBUTE_VALUE_MAX = 64
SLICE_MAX_DEVICES = 128
SLICE_MAX_SHARED_COUNTERS = 32
DEVICE_MAX_ATTRIBUTES_AND_CAPACITIES = 32
DEVICE_TAINTS_MAX = 4
REQUESTS_MAX = 32
CONSTRAINTS_MAX = 32
CONFIG_MAX = 32
SELECTORS_MAX = 32
FIRST_AVAILABLE_MAX = 8
TOLERATIONS_MAX = 16
CEL_EXPRESSION_MAX = 10 * 1024
OPAQUE_PARAMETERS_MAX = 10 * 1024
RESERVED_FOR_MAX = 256
ALLOCATION_RESULTS_MAX = 32
BINDING_CONDITIONS_MAX = 4

EXACT_COUNT, ALL = "ExactCount", "All"


def claim_spec(kind: str, obj: Obj) -> Obj | None:
    """The ResourceClaimSpec inside a claim or a template, None for the other kinds."""
    spec = obj.get("spec")
    if kind == "ResourceClaimTemplate" and isinstance(spec, dict):
        spec = spec.get("spec")
    if kind in ("ResourceClaim", "ResourceClaimTemplate") and isinstance(spec, dict):
        return spec
    return None


def device_requests(spec: Obj) -> Iterator[Obj]:
    """Every request of a claim spec that is a mapping, in order."""
    devices = spec.get("devices")
    requests = devices.get("requests") if isinstance(devices, dict) else None
    for request in requests if isinstance(requests, list) else []:
        if isinstance(request, dict):
            yield request


def _default_allocation(request: Obj) -> None:
    request.setdefault("allocationMode", EXACT_COUNT)
    if request["allocationMode"] == EXACT_COUNT and not request.get("count"):
        # Go cannot tell an absent count from 0, so an explicit 0 becomes 1 as well.
        request["count"] = 1


def default_dra_object(kind: str, obj: Obj) -> None:
    """Fill in what upstream's defaulting fills in, in place, before validation."""
    spec = claim_spec(kind, obj)
    if spec is None:
        return
    for request in device_requests(spec):
        exactly = request.get("exactly")
        if isinstance(exactly, dict):
            _default_allocation(exactly)
        alternatives = request.get("firstAvailable")
        for sub in alternatives if isinstance(alternatives, list) else []:
            if isinstance(sub, dict):
                _default_allocation(sub)
