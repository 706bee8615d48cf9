"""Validation of a pod spec (of a Pod or of a workload's template): containers, resources, volumes.

Order and wording follow `k8s.io/kubernetes/pkg/apis/core/validation`, including the extended
resource rules: whole numbers only, and requests equal to limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from nufi_sandbox.devcluster.validation.field_causes import (
    Cause,
    as_list,
    as_map,
    as_str,
    duplicate,
    invalid,
    not_found,
    not_supported,
    required,
)
from nufi_sandbox.devcluster.validation.names import dns1123_label_errors, qualified_name_errors
from nufi_sandbox.devcluster.validation.pod_claims import container_claims_causes, pod_claims_causes
from nufi_sandbox.devcluster.validation.quantity import (
    QuantityError,
    format_quantity,
    is_integer_quantity,
    parse_quantity_with_format,
)

# --- resources --------------------------------------------------------------------------------

_CONTAINER_RESOURCES = {"cpu", "memory", "ephemeral-storage"}
_STANDARD_RESOURCES = _CONTAINER_RESOURCES | {
    "storage",
    "pods",
    "services",
    "configmaps",
    "secrets",
    "replicationcontrollers",
    "resourcequotas",
    "persistentvolumeclaims",
    *(f"{scope}.{res}" for scope in ("requests", "limits") for res in _CONTAINER_RESOURCES),
    "requests.storage",
}


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    """`IsExtendedResourceName`: not native, not quota-prefixed, and a qualified quota name."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


# Any device class can be asked for by this name plus its own (KEP-5004), whether or not it declares one.
DEVICE_CLASS_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"


def is_dra_extended_resource(name: str) -> bool:
    """`IsDRAExtendedResourceName`: an extended resource, or a device class's implicit name."""
    return is_extended_resource(name) or name.startswith(DEVICE_CLASS_RESOURCE_PREFIX)


def _overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not name.startswith("hugepages-")


def _resource_name(name: str, path: str) -> list[Cause]:
    syntax = qualified_name_errors(name)
    if syntax:
        return [invalid(path, name, msg) for msg in syntax]
    hugepages = name.startswith("hugepages-")
    if "/" not in name:
        causes = []
        if name not in _STANDARD_RESOURCES and not hugepages:
            causes.append(invalid(path, name, "must be a standard resource type or fully qualified"))
        if name not in _CONTAINER_RESOURCES and not hugepages:
            causes.append(invalid(path, name, "must be a standard resource for containers"))
        return causes
    if not is_native_resource(name) and not is_extended_resource(name):
        return [invalid(path, name, "doesn't follow extended resource name standard")]
    return []


def _resource_entry(name: str, raw: object, path: str, causes: list[Cause]) -> tuple[Decimal, str] | None:
    """Parse one `requests`/`limits` entry, recording its problems: (value, canonical text) or None."""
    causes += _resource_name(name, path)
    text = str(raw) if isinstance(raw, int | float | str) and not isinstance(raw, bool) else None
    if text is None:
        causes.append(invalid(path, raw, "must be a quantity such as 1, 500m or 2Gi"))
        return None
    try:
        value, fmt = parse_quantity_with_format(text)
    except QuantityError as exc:
        causes.append(invalid(path, text, str(exc)))
        return None
    shown = format_quantity(value, fmt)
    if value < 0:
        causes.append(invalid(path, shown, "must be greater than or equal to 0"))
    if is_extended_resource(name) and not is_integer_quantity(value):
        causes.append(invalid(path, shown, "must be an integer"))
    return value, shown


def _resources(resources: Mapping[str, Any], path: str) -> list[Cause]:
    causes: list[Cause] = []
    raw_limits, raw_requests = as_map(resources.get("limits")), as_map(resources.get("requests"))
    limits = {
        name: _resource_entry(name, raw, f"{path}.limits[{name}]", causes) for name, raw in raw_limits.items()
    }
    for name, raw in raw_requests.items():
        entry = _resource_entry(name, raw, f"{path}.requests[{name}]", causes)
        if entry is None:
            continue
        request, shown = entry
        if name not in raw_limits:
            if not _overcommit_allowed(name):
                causes.append(
                    required(f"{path}.limits", "Limit must be set for non overcommitable resources")
                )
            continue
        if limits[name] is None:
            continue
        limit, limit_shown = limits[name]  # type: ignore[misc]
        if request != limit and not _overcommit_allowed(name):
            detail = f"must be equal to {name} limit of {limit_shown}"
            causes.append(invalid(f"{path}.requests", shown, detail))
        elif request > limit:
            detail = f"must be less than or equal to {name} limit of {limit_shown}"
            causes.append(invalid(f"{path}.requests", shown, detail))
    return causes


# --- pod spec -------------------------------------------------------------------------------

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
PORT_RANGE = "must be between 1 and 65535, inclusive"


def _container(container: Mapping[str, Any], path: str, volumes: set[str], claims: set[str]) -> list[Cause]:
    causes: list[Cause] = []
    name = as_str(container.get("name"))
    if not name:
        causes.append(required(f"{path}.name"))
    else:
        causes += [invalid(f"{path}.name", name, msg) for msg in dns1123_label_errors(name)]
    if not as_str(container.get("image")):
        causes.append(required(f"{path}.image"))
    for i, port in enumerate(as_list(container.get("ports"))):
        number = as_map(port).get("containerPort")
        if not number:
            causes.append(required(f"{path}.ports[{i}].containerPort"))
        elif not isinstance(number, int) or not 1 <= number <= 65535:
            causes.append(invalid(f"{path}.ports[{i}].containerPort", number, PORT_RANGE))
    mount_points: set[str] = set()
    for i, mount in enumerate(as_list(container.get("volumeMounts"))):
        mount_path, volume = as_str(as_map(mount).get("mountPath")), as_str(as_map(mount).get("name"))
        if not volume:
            causes.append(required(f"{path}.volumeMounts[{i}].name"))
        elif volume not in volumes:
            causes.append(not_found(f"{path}.volumeMounts[{i}].name", volume))
        if not mount_path:
            causes.append(required(f"{path}.volumeMounts[{i}].mountPath"))
        elif mount_path in mount_points:
            causes.append(invalid(f"{path}.volumeMounts[{i}].mountPath", mount_path, "must be unique"))
        mount_points.add(mount_path)
    policy = container.get("imagePullPolicy")
    if policy and policy not in _PULL_POLICIES:
        causes.append(not_supported(f"{path}.imagePullPolicy", policy, _PULL_POLICIES))
    causes += _resources(as_map(container.get("resources")), f"{path}.resources")
    causes += container_claims_causes(as_map(container.get("resources")), f"{path}.resources", claims)
    return causes


def _volumes(spec: Mapping[str, Any], path: str, causes: list[Cause]) -> set[str]:
    names: set[str] = set()
    for i, volume in enumerate(as_list(spec.get("volumes"))):
        name = as_str(as_map(volume).get("name"))
        if not name:
            causes.append(required(f"{path}.volumes[{i}].name"))
        else:
            causes += [invalid(f"{path}.volumes[{i}].name", name, m) for m in dns1123_label_errors(name)]
        if name in names:
            causes.append(duplicate(f"{path}.volumes[{i}].name", name))
        names.add(name)
    return names


def pod_spec_causes(spec: Mapping[str, Any], path: str) -> list[Cause]:
    causes: list[Cause] = []
    volumes = _volumes(spec, path, causes)
    claim_causes, claims = pod_claims_causes(spec, path)
    causes += claim_causes
    containers = [as_map(c) for c in as_list(spec.get("containers"))]
    seen: set[str] = set()
    if not containers:
        causes.append(required(f"{path}.containers"))
    for i, container in enumerate(containers):
        causes += _container(container, f"{path}.containers[{i}]", volumes, claims)
        name = as_str(container.get("name"))
        if name in seen:
            causes.append(duplicate(f"{path}.containers[{i}].name", name))
        seen.add(name)
    for i, container in enumerate(as_map(c) for c in as_list(spec.get("initContainers"))):
        causes += _container(container, f"{path}.initContainers[{i}]", volumes, claims)
        name = as_str(container.get("name"))
        if name in seen:
            causes.append(duplicate(f"{path}.initContainers[{i}].name", name))
        elif name:
            seen.add(name)
    policy = spec.get("restartPolicy")
    if policy and policy not in _RESTART_POLICIES:
        causes.append(not_supported(f"{path}.restartPolicy", policy, _RESTART_POLICIES))
    for i, gate in enumerate(as_list(spec.get("readinessGates"))):
        condition = as_str(as_map(gate).get("conditionType"))
        gate_path = f"{path}.readinessGates[{i}].conditionType"
        causes += [invalid(gate_path, condition, msg) for msg in qualified_name_errors(condition)]
    return causes
