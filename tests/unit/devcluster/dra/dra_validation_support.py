"""The check the DRA validation tests run: what admission runs (defaulting, then validation)."""

from __future__ import annotations

from typing import Any

from nufi_sandbox.devcluster.dra.objects import default_dra_object
from nufi_sandbox.devcluster.validation.objects import format_invalid_message, validate_object

Obj = dict[str, Any]
NAMESPACED = {
    "DeviceClass": False,
    "ResourceSlice": False,
    "ResourceClaim": True,
    "ResourceClaimTemplate": True,
}


def causes(obj: Obj, old: Obj | None = None) -> list[tuple[str, str]]:
    """(field, message) of every cause the API server lists, after its defaulting, as admission runs it."""
    kind = obj["kind"]
    default_dra_object(kind, obj)
    found = validate_object(kind, obj, NAMESPACED[kind], old)
    return [(c["field"], c["message"]) for c in found]


def refusal(obj: Obj, old: Obj | None = None) -> str:
    """The 422 Status message kube-apiserver writes for `obj`."""
    kind = obj["kind"]
    default_dra_object(kind, obj)
    found = validate_object(kind, obj, NAMESPACED[kind], old)
    return format_invalid_message(kind, obj["metadata"]["name"], found, "resource.k8s.io")
