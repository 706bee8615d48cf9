"""The API server's validation of resource.k8s.io/v1 objects, by kind, on create, update and `/status`.

Object metadata is checked by the dev cluster's common validation; this adds each kind's spec rules
(`validation_claims`, `validation_slices`) and the update rules: a claim's and a template's spec never
change ("field is immutable"), a slice keeps its driver, pool and node, and a claim's status is checked
only when written through `/status` (`validation_status`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.dra.objects import claim_spec
from nufi_sandbox.devcluster.dra.validation_claims import (
    claim_spec_causes,
    device_class_causes,
    request_names,
)
from nufi_sandbox.devcluster.dra.validation_slices import slice_spec_causes, slice_update_causes
from nufi_sandbox.devcluster.dra.validation_status import claim_status_causes
from nufi_sandbox.devcluster.validation.field_causes import Cause, as_map, invalid_shown

_IMMUTABLE_SPEC = ("ResourceClaim", "ResourceClaimTemplate")


def _spec_path(kind: str) -> str:
    return "spec.spec" if kind == "ResourceClaimTemplate" else "spec"


def dra_spec_causes(kind: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[Cause]:
    """The spec rules of a DRA kind for a create (`old` None) or an update of the main resource."""
    spec = as_map(obj.get("spec"))
    if kind in _IMMUTABLE_SPEC and old is not None:
        if spec != as_map(old.get("spec")):
            # Upstream prints its Go struct as the value; the JSON of the new spec says the same.
            shown = json.dumps(spec, separators=(",", ":"), sort_keys=True)
            return [invalid_shown("spec", shown, "field is immutable")]
        return []
    if kind in _IMMUTABLE_SPEC:
        return claim_spec_causes(as_map(claim_spec(kind, dict(obj))), _spec_path(kind))
    if kind == "DeviceClass":
        return device_class_causes(spec, None if old is None else as_map(old.get("spec")))
    if kind == "ResourceSlice":
        causes = slice_spec_causes(spec)
        return causes if old is None else slice_update_causes(spec, as_map(old.get("spec"))) + causes
    return []


def dra_status_causes(kind: str, new: Mapping[str, Any], old: Mapping[str, Any]) -> list[Cause]:
    """What a write to a DRA object's `/status` may not do (only claims have a status to write)."""
    if kind != "ResourceClaim":
        return []
    names = request_names(as_map(as_map(new.get("spec")).get("devices")))
    return claim_status_causes(new, old, names)
