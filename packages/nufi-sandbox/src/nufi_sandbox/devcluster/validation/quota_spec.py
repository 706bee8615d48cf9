"""Validation of a ResourceQuota's `spec.hard`, worded like `ValidateResourceQuotaSpec`.

A key without `/` must be a standard quota resource (`requests.cpu`, `pods`...); a key with one need only
be a qualified name. So `limits.vendor.example/accel` is accepted as the real server accepts it, though
no evaluator ever counts it: for extended resources only `requests.<name>` is enforced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.validation.field_causes import Cause, as_list, as_map, as_str, invalid, required
from nufi_sandbox.devcluster.validation.names import go_quote, qualified_name_errors
from nufi_sandbox.devcluster.validation.pod_spec import is_extended_resource
from nufi_sandbox.devcluster.validation.quantity import (
    QuantityError,
    format_quantity,
    is_integer_quantity,
    parse_quantity_with_format,
)

_COMPUTE = ("cpu", "memory", "ephemeral-storage")
STANDARD_QUOTA_RESOURCES = frozenset(
    {
        *_COMPUTE,
        *(f"{scope}.{res}" for scope in ("requests", "limits") for res in _COMPUTE),
        "requests.storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)
# Standard names that are not quota names still pass the first check (`validateResourceName`).
_STANDARD_RESOURCES = STANDARD_QUOTA_RESOURCES | {"storage"}
_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_INVALID_QUOTA_RESOURCE = "must be a standard resource for quota"


def _is_hugepages(name: str) -> bool:
    return name.startswith(("hugepages-", "requests.hugepages-"))


def _name_causes(name: str, path: str) -> list[Cause]:
    syntax = qualified_name_errors(name)
    if syntax:
        return [invalid(path, name, msg) for msg in syntax]
    if "/" in name or _is_hugepages(name):
        return []
    causes = []
    if name not in _STANDARD_RESOURCES:
        causes.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    if name not in STANDARD_QUOTA_RESOURCES:
        causes.append(invalid(path, name, _INVALID_QUOTA_RESOURCE))
    return causes


def _value_causes(name: str, raw: object, path: str) -> list[Cause]:
    text = str(raw) if isinstance(raw, int | float | str) and not isinstance(raw, bool) else None
    if text is None:
        return [invalid(path, raw, "must be a quantity such as 1, 500m or 2Gi")]
    try:
        value, fmt = parse_quantity_with_format(text)
    except QuantityError as exc:
        return [invalid(path, text, str(exc))]
    shown = format_quantity(value, fmt)
    causes = []
    if value < 0:
        causes.append(invalid(path, shown, "must be greater than or equal to 0"))
    # `requests.<ext>` is not itself an extended resource name, so fractions of it pass, as on a real server.
    if (name in _INTEGER_RESOURCES or is_extended_resource(name)) and not is_integer_quantity(value):
        causes.append(invalid(path, shown, "must be an integer"))
    return causes


def resource_list_causes(resources: Mapping[str, Any], path: str) -> list[Cause]:
    """Causes for one `hard`/`used` map; keys in sorted order so a message is reproducible."""
    causes: list[Cause] = []
    for name in sorted(resources):
        key_path = f"{path}[{name}]"
        causes += _name_causes(str(name), key_path)
        causes += _value_causes(str(name), resources[name], key_path)
    return causes


def resource_quota_causes(obj: Mapping[str, Any]) -> list[Cause]:
    spec = as_map(obj.get("spec"))
    hard = as_map(spec.get("hard"))
    return (
        resource_list_causes(hard, "spec.hard")
        + _scope_causes(spec, sorted(hard))
        + _selector_causes(spec, sorted(hard))
    )


# --- scopes (validateResourceQuotaScopes, validateScopeSelector) ------------------------------------------

_STANDARD_SCOPES = (
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
)
_POD_COUNT_AND_COMPUTE = frozenset(
    {"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
)
_CONFLICTS = (("BestEffort", "NotBestEffort"), ("NotTerminating", "Terminating"))
_EXISTS_ONLY = (
    "must be 'Exist' only operator when scope is any of ResourceQuotaScopeTerminating, "
    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort and ResourceQuotaScopeNotBestEffort"
)


def _scope_fits(scope: str, resource: str) -> bool:
    """`IsResourceQuotaScopeValidForResource`."""
    if scope == "BestEffort":
        return resource == "pods"
    if scope in (
        "Terminating",
        "NotTerminating",
        "NotBestEffort",
        "PriorityClass",
        "CrossNamespacePodAffinity",
    ):
        return resource in _POD_COUNT_AND_COMPUTE
    return True


def _raw_invalid(path: str, shown: str, detail: str) -> Cause:
    """An Invalid cause whose value Go prints with %#v (a slice or struct of the internal API)."""
    return Cause(reason="FieldValueInvalid", message=f"Invalid value: {shown}: {detail}", field=path)


def _go_scopes(scopes: list[str]) -> str:
    return "[]core.ResourceQuotaScope{" + ", ".join(go_quote(s) for s in scopes) + "}"


def _go_selector(expressions: list[Mapping[str, Any]]) -> str:
    shown = []
    for e in expressions:
        values = [str(v) for v in as_list(e.get("values"))]
        listed = "[]string{" + ", ".join(go_quote(v) for v in values) + "}" if values else "[]string(nil)"
        shown.append(
            f"core.ScopedResourceSelectorRequirement{{ScopeName:{go_quote(as_str(e.get('scopeName')))}, "
            f"Operator:{go_quote(as_str(e.get('operator')))}, Values:{listed}}}"
        )
    return (
        "core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{"
        + ", ".join(shown)
        + "}}"
    )


def _quota_resources(hard: list[str]) -> list[str]:
    return [k for k in hard if k in STANDARD_QUOTA_RESOURCES or _is_hugepages(k)]


def _scope_causes(spec: Mapping[str, Any], hard: list[str]) -> list[Cause]:
    scopes = [as_str(s) for s in as_list(spec.get("scopes"))]
    shown = _go_scopes(scopes)
    causes = []
    for scope in scopes:
        if scope not in _STANDARD_SCOPES:
            causes.append(_raw_invalid("spec.scopes", shown, "unsupported scope"))
        for resource in _quota_resources(hard):
            if not _scope_fits(scope, resource):
                causes.append(_raw_invalid("spec.scopes", shown, "unsupported scope applied to resource"))
    for pair in _CONFLICTS:
        if set(pair) <= set(scopes):
            causes.append(_raw_invalid("spec.scopes", shown, "conflicting scopes"))
    return causes


def _selector_causes(spec: Mapping[str, Any], hard: list[str]) -> list[Cause]:
    selector = spec.get("scopeSelector")
    if not isinstance(selector, Mapping):
        return []
    expressions = [as_map(e) for e in as_list(selector.get("matchExpressions"))]
    path = "spec.scopeSelector.matchExpressions"
    causes = []
    for e in expressions:
        scope, operator = as_str(e.get("scopeName")), as_str(e.get("operator"))
        if scope not in _STANDARD_SCOPES:
            causes.append(invalid(f"{path}.scopeName", scope, "unsupported scope"))
        for resource in _quota_resources(hard):
            if not _scope_fits(scope, resource):
                causes.append(
                    _raw_invalid(path, _go_selector(expressions), "unsupported scope applied to resource")
                )
        if scope in ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating") and operator != "Exists":
            causes.append(invalid(f"{path}.operator", operator, _EXISTS_ONLY))
        values = as_list(e.get("values"))
        if operator in ("In", "NotIn") and not values:
            detail = "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
            causes.append(required(f"{path}.values", detail))
        elif operator in ("Exists", "DoesNotExist") and values:
            detail = "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
            shown = "[]string{" + ", ".join(go_quote(str(v)) for v in values) + "}"
            causes.append(_raw_invalid(f"{path}.values", shown, detail))
        elif operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            causes.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    selected = {as_str(e.get("scopeName")) for e in expressions}
    listed = [as_str(s) for s in as_list(spec.get("scopes"))]
    # Go prints `spec.scopes` here, not the selector: nil when the quota lists no scopes.
    shown = _go_scopes(listed) if listed else "[]core.ResourceQuotaScope(nil)"
    for pair in _CONFLICTS:
        if set(pair) <= selected:
            causes.append(_raw_invalid(path, shown, "conflicting scopes"))
    return causes


def canonical_resource_list(resources: Mapping[str, Any]) -> dict[str, str]:
    """Quantities as the server writes them back (`1000m` -> `1`); call only on a validated map."""
    out = {}
    for name, raw in resources.items():
        value, fmt = parse_quantity_with_format(str(raw))
        out[str(name)] = format_quantity(value, fmt)
    return out
