"""Validation of a ResourceQuota's `spec.hard`, worded like `ValidateResourceQuotaSpec`.

A key without `/` must be a standard quota resource (`requests.cpu`, `pods`...); a key with one need only
be a qualified name. So `limits.vendor.example/accel` is accepted as the real server accepts it, though
no evaluator ever counts it: for extended resources only `requests.<name>` is enforced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.validation.field_causes import Cause, as_map, invalid
from nufi_sandbox.devcluster.validation.names import qualified_name_errors
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
    return resource_list_causes(as_map(spec.get("hard")), "spec.hard")


def canonical_resource_list(resources: Mapping[str, Any]) -> dict[str, str]:
    """Quantities as the server writes them back (`1000m` -> `1`); call only on a validated map."""
    out = {}
    for name, raw in resources.items():
        value, fmt = parse_quantity_with_format(str(raw))
        out[str(name)] = format_quantity(value, fmt)
    return out
