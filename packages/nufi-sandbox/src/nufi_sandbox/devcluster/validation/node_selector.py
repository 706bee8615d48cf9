"""A `NodeSelector` (node affinity's terms, a ResourceSlice's or an allocation's nodes), checked as
`ValidateNodeSelector` in `k8s.io/kubernetes/pkg/apis/core/validation` checks it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.validation.field_causes import (
    Cause,
    as_list,
    as_map,
    as_str,
    forbidden,
    invalid,
    required,
)
from nufi_sandbox.devcluster.validation.names import (
    dns1123_subdomain_errors,
    label_value_errors,
    qualified_name_errors,
)

_NOT_AN_OPERATOR = "not a valid selector operator"


def _expression(rq: Mapping[str, Any], path: str) -> list[Cause]:
    operator, values = rq.get("operator"), [as_str(v) for v in as_list(rq.get("values"))]
    causes: list[Cause] = []
    if operator in ("In", "NotIn") and not values:
        causes.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist") and values:
        detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        causes.append(forbidden(f"{path}.values", detail))
    elif operator in ("Gt", "Lt") and len(values) != 1:
        detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
        causes.append(required(f"{path}.values", detail))
    elif operator not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        causes.append(invalid(f"{path}.operator", as_str(operator), _NOT_AN_OPERATOR))
    key = as_str(rq.get("key"))
    causes += [invalid(f"{path}.key", key, msg) for msg in qualified_name_errors(key)]
    for i, value in enumerate(values):
        causes += [invalid(f"{path}.values[{i}]", value, msg) for msg in label_value_errors(value)]
    return causes


def _field(rq: Mapping[str, Any], path: str) -> list[Cause]:
    operator, values = rq.get("operator"), [as_str(v) for v in as_list(rq.get("values"))]
    causes: list[Cause] = []
    if operator in ("In", "NotIn") and len(values) != 1:
        detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
        causes.append(required(f"{path}.values", detail))
    elif operator not in ("In", "NotIn"):
        causes.append(invalid(f"{path}.operator", as_str(operator), _NOT_AN_OPERATOR))
    key = as_str(rq.get("key"))
    if key != "metadata.name":
        return [*causes, invalid(f"{path}.key", key, "not a valid field selector key")]
    for i, value in enumerate(values):
        causes += [invalid(f"{path}.values[{i}]", value, msg) for msg in dns1123_subdomain_errors(value)]
    return causes


def node_selector_causes(selector: Mapping[str, Any], path: str) -> list[Cause]:
    terms_path = f"{path}.nodeSelectorTerms"
    terms = as_list(selector.get("nodeSelectorTerms"))
    if not terms:
        return [required(terms_path, "must have at least one node selector term")]
    causes: list[Cause] = []
    for i, term in enumerate(as_map(t) for t in terms):
        for j, rq in enumerate(as_list(term.get("matchExpressions"))):
            causes += _expression(as_map(rq), f"{terms_path}[{i}].matchExpressions[{j}]")
        for j, rq in enumerate(as_list(term.get("matchFields"))):
            causes += _field(as_map(rq), f"{terms_path}[{i}].matchFields[{j}]")
    return causes
