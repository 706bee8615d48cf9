"""A pod's ResourceClaims: `spec.resourceClaims[]` and the containers' `resources.claims[]` that name
them, checked as `k8s.io/kubernetes/pkg/apis/core/validation` checks them.

Where upstream prints a `PodResourceClaim` with Go's `%#v`, so does this; a set pointer prints as an
address there, which is never the same twice, so a fixed one stands in for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.validation.field_causes import (
    Cause,
    as_list,
    as_map,
    as_str,
    duplicate,
    invalid,
    invalid_shown,
    required,
)
from nufi_sandbox.devcluster.validation.names import dns1123_label_errors, dns1123_subdomain_errors, go_quote

_SOURCES = ("resourceClaimName", "resourceClaimTemplateName")
_ADDRESS = "(*string)(0xc000a1c2d0)"


def _go_claim(claim: Mapping[str, Any]) -> str:
    fields = [f"Name:{go_quote(as_str(claim.get('name')))}"]
    for source in _SOURCES:
        pointer = _ADDRESS if claim.get(source) is not None else "(*string)(nil)"
        fields.append(f"{source[0].upper()}{source[1:]}:{pointer}")
    return "core.PodResourceClaim{" + ", ".join(fields) + "}"


def _label(value: str, path: str) -> list[Cause]:
    return [invalid(path, value, msg) for msg in dns1123_label_errors(value)]


def _pod_claim(claim: Mapping[str, Any], path: str, names: set[str]) -> list[Cause]:
    causes: list[Cause] = []
    name = as_str(claim.get("name"))
    if not name:
        causes.append(required(f"{path}.name"))
    elif name in names:
        causes.append(duplicate(f"{path}.name", name))
    else:
        causes += _label(name, f"{path}.name")
        names.add(name)
    chosen = [source for source in _SOURCES if claim.get(source) is not None]
    if len(chosen) > 1:
        detail = "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
        causes.append(invalid_shown(path, _go_claim(claim), detail))
    elif not chosen:
        detail = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
        causes.append(invalid_shown(path, _go_claim(claim), detail))
    for source in chosen:
        value = as_str(claim.get(source))
        causes += [invalid(f"{path}.{source}", value, msg) for msg in dns1123_subdomain_errors(value)]
    return causes


def pod_claims_causes(spec: Mapping[str, Any], path: str) -> tuple[list[Cause], set[str]]:
    """The causes of `spec.resourceClaims`, and the claim names containers may refer to."""
    names: set[str] = set()
    causes: list[Cause] = []
    for i, claim in enumerate(as_list(spec.get("resourceClaims"))):
        causes += _pod_claim(as_map(claim), f"{path}.resourceClaims[{i}]", names)
    return causes, names


def container_claims_causes(resources: Mapping[str, Any], path: str, pod_claims: set[str]) -> list[Cause]:
    """`resources.claims`: each names a pod claim (and maybe one of its requests), once."""
    causes: list[Cause] = []
    seen: set[str] = set()
    for i, claim in enumerate(as_map(c) for c in as_list(resources.get("claims"))):
        at, name, request = f"{path}.claims[{i}]", as_str(claim.get("name")), as_str(claim.get("request"))
        if not name:
            causes.append(required(at))
            continue
        key = f"{name}/{request}" if request else name
        if request:
            causes += _label(request, f"{at}.request")
        if key in seen or name in seen:
            causes.append(duplicate(at, key if key in seen else name))
        seen.add(key)
        if name not in pod_claims:
            listed = ": " + ", ".join(sorted(pod_claims)) if pod_claims else " which is empty"
            message = (
                f"Not found: {go_quote(name)}: must be one of the names in pod.spec.resourceClaims{listed}"
            )
            causes.append(Cause(reason="FieldValueNotFound", message=message, field=at))
    return causes
