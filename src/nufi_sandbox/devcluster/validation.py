"""Field validation of the API server, producing the causes of an `Invalid` (422) Status.

Covers object metadata for every kind and the pod spec (of Pods and of workload templates) in the
detail a client notices: names, labels, containers, resource quantities and the extended resource
rules, readiness gates, restart policies, ports and volume mounts. Order and wording follow
`k8s.io/kubernetes/pkg/apis/core/validation`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, TypedDict

from nufi_sandbox.devcluster.quantity import (
    QuantityError,
    format_quantity,
    is_integer_quantity,
    parse_quantity_with_format,
)
from nufi_sandbox.devcluster.selectors import (
    dns1123_subdomain_errors,
    go_quote,
    label_value_errors,
    max_len_error,
    qualified_name_errors,
    regex_error,
)


class Cause(TypedDict):
    """One `details.causes[]` entry of a Kubernetes Status."""

    reason: str
    message: str
    field: str


# --- causes, worded like k8s.io/apimachinery/pkg/util/validation/field --------------------


def _show(value: object) -> str:
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _invalid(path: str, value: object, detail: str) -> Cause:
    return Cause(reason="FieldValueInvalid", message=f"Invalid value: {_show(value)}: {detail}", field=path)


def _required(path: str, detail: str = "") -> Cause:
    message = f"Required value: {detail}" if detail else "Required value"
    return Cause(reason="FieldValueRequired", message=message, field=path)


def _not_supported(path: str, value: object, supported: Iterable[str]) -> Cause:
    listed = ", ".join(go_quote(option) for option in supported)
    message = f"Unsupported value: {_show(value)}: supported values: {listed}"
    return Cause(reason="FieldValueNotSupported", message=message, field=path)


def _forbidden(path: str, detail: str) -> Cause:
    return Cause(reason="FieldValueForbidden", message=f"Forbidden: {detail}", field=path)


def _duplicate(path: str, value: object) -> Cause:
    return Cause(reason="FieldValueDuplicate", message=f"Duplicate value: {_show(value)}", field=path)


def _not_found(path: str, value: object) -> Cause:
    return Cause(reason="FieldValueNotFound", message=f"Not found: {_show(value)}", field=path)


# --- names ----------------------------------------------------------------------------------

_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"


def dns1123_label_errors(value: str) -> list[str]:
    errors = [max_len_error(63)] if len(value) > 63 else []
    if not re.fullmatch(_DNS1123_LABEL, value):
        message = (
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
            "and must start and end with an alphanumeric character"
        )
        errors.append(regex_error(message, _DNS1123_LABEL, "my-name", "123-abc"))
    return errors


def _dns1035_label_errors(value: str) -> list[str]:
    errors = [max_len_error(63)] if len(value) > 63 else []
    if not re.fullmatch(_DNS1035_LABEL, value):
        message = (
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
            "start with an alphabetic character, and end with an alphanumeric character"
        )
        errors.append(regex_error(message, _DNS1035_LABEL, "my-name", "abc-123"))
    return errors


def _path_segment_errors(value: str) -> list[str]:
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{char}'" for char in "/%" if char in value]


_NAME_RULES = {
    "Namespace": dns1123_label_errors,
    "Service": _dns1035_label_errors,
    "Role": _path_segment_errors,
    "ClusterRole": _path_segment_errors,
    "RoleBinding": _path_segment_errors,
    "ClusterRoleBinding": _path_segment_errors,
}


def _name_errors(kind: str, name: str, prefix: bool) -> list[str]:
    rule = _NAME_RULES.get(kind, dns1123_subdomain_errors)
    if prefix and rule is _path_segment_errors:
        return [f"may not contain '{char}'" for char in "/%" if char in name]
    if prefix and len(name) > 1 and name.endswith("-"):
        # The server appends a random suffix, so a trailing dash is fine; Go masks it this way.
        name = name[:-2] + "a"
    return rule(name)


# --- metadata -------------------------------------------------------------------------------

_ANNOTATIONS_LIMIT = 256 * 1024


def _labels(labels: object, path: str) -> list[Cause]:
    causes: list[Cause] = []
    for key, value in _map(labels).items():
        causes += [_invalid(path, key, msg) for msg in qualified_name_errors(str(key))]
        if not isinstance(value, str):
            causes.append(_invalid(path, value, "must be a string"))
            continue
        causes += [_invalid(path, value, msg) for msg in label_value_errors(value)]
    return causes


def _annotations(annotations: object, path: str) -> list[Cause]:
    present = _map(annotations)
    causes = [_invalid(path, key, msg) for key in present for msg in qualified_name_errors(str(key).lower())]
    if sum(len(str(k)) + len(str(v)) for k, v in present.items()) > _ANNOTATIONS_LIMIT:
        causes.append(
            Cause(
                reason="FieldValueTooLong",
                message=f"Too long: may not be more than {_ANNOTATIONS_LIMIT} bytes",
                field=path,
            )
        )
    return causes


def _object_meta(kind: str, meta: Mapping[str, Any], namespaced: bool) -> list[Cause]:
    causes: list[Cause] = []
    name, generate_name = _str(meta.get("name")), _str(meta.get("generateName"))
    if generate_name:
        for msg in _name_errors(kind, generate_name, prefix=True):
            causes.append(_invalid("metadata.generateName", generate_name, msg))
    if name:
        causes += [_invalid("metadata.name", name, msg) for msg in _name_errors(kind, name, prefix=False)]
    elif not generate_name:
        causes.append(_required("metadata.name", "name or generateName is required"))
    namespace = _str(meta.get("namespace"))
    if namespaced and not namespace:
        causes.append(_required("metadata.namespace"))
    elif namespaced:
        causes += [_invalid("metadata.namespace", namespace, m) for m in dns1123_label_errors(namespace)]
    elif namespace:
        causes.append(_forbidden("metadata.namespace", "not allowed on this type"))
    causes += _labels(meta.get("labels"), "metadata.labels")
    causes += _annotations(meta.get("annotations"), "metadata.annotations")
    return causes


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


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    """`IsExtendedResourceName`: not native, not quota-prefixed, and a qualified quota name."""
    if _is_native(name) or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not name.startswith("hugepages-")


def _resource_name(name: str, path: str) -> list[Cause]:
    syntax = qualified_name_errors(name)
    if syntax:
        return [_invalid(path, name, msg) for msg in syntax]
    hugepages = name.startswith("hugepages-")
    if "/" not in name:
        causes = []
        if name not in _STANDARD_RESOURCES and not hugepages:
            causes.append(_invalid(path, name, "must be a standard resource type or fully qualified"))
        if name not in _CONTAINER_RESOURCES and not hugepages:
            causes.append(_invalid(path, name, "must be a standard resource for containers"))
        return causes
    if not _is_native(name) and not _is_extended(name):
        return [_invalid(path, name, "doesn't follow extended resource name standard")]
    return []


def _resource_entry(name: str, raw: object, path: str, causes: list[Cause]) -> tuple[Decimal, str] | None:
    """Parse one `requests`/`limits` entry, recording its problems: (value, canonical text) or None."""
    causes += _resource_name(name, path)
    text = str(raw) if isinstance(raw, int | float | str) and not isinstance(raw, bool) else None
    if text is None:
        causes.append(_invalid(path, raw, "must be a quantity such as 1, 500m or 2Gi"))
        return None
    try:
        value, fmt = parse_quantity_with_format(text)
    except QuantityError as exc:
        causes.append(_invalid(path, text, str(exc)))
        return None
    shown = format_quantity(value, fmt)
    if value < 0:
        causes.append(_invalid(path, shown, "must be greater than or equal to 0"))
    if _is_extended(name) and not is_integer_quantity(value):
        causes.append(_invalid(path, shown, "must be an integer"))
    return value, shown


def _resources(resources: Mapping[str, Any], path: str) -> list[Cause]:
    causes: list[Cause] = []
    raw_limits, raw_requests = _map(resources.get("limits")), _map(resources.get("requests"))
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
                    _required(f"{path}.limits", "Limit must be set for non overcommitable resources")
                )
            continue
        if limits[name] is None:
            continue
        limit, limit_shown = limits[name]  # type: ignore[misc]
        if request != limit and not _overcommit_allowed(name):
            detail = f"must be equal to {name} limit of {limit_shown}"
            causes.append(_invalid(f"{path}.requests", shown, detail))
        elif request > limit:
            detail = f"must be less than or equal to {name} limit of {limit_shown}"
            causes.append(_invalid(f"{path}.requests", shown, detail))
    return causes


# --- pod spec -------------------------------------------------------------------------------

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_PORT_RANGE = "must be between 1 and 65535, inclusive"


def _container(container: Mapping[str, Any], path: str, volumes: set[str]) -> list[Cause]:
    causes: list[Cause] = []
    name = _str(container.get("name"))
    if not name:
        causes.append(_required(f"{path}.name"))
    else:
        causes += [_invalid(f"{path}.name", name, msg) for msg in dns1123_label_errors(name)]
    if not _str(container.get("image")):
        causes.append(_required(f"{path}.image"))
    for i, port in enumerate(_list(container.get("ports"))):
        number = _map(port).get("containerPort")
        if not number:
            causes.append(_required(f"{path}.ports[{i}].containerPort"))
        elif not isinstance(number, int) or not 1 <= number <= 65535:
            causes.append(_invalid(f"{path}.ports[{i}].containerPort", number, _PORT_RANGE))
    mount_points: set[str] = set()
    for i, mount in enumerate(_list(container.get("volumeMounts"))):
        mount_path, volume = _str(_map(mount).get("mountPath")), _str(_map(mount).get("name"))
        if not volume:
            causes.append(_required(f"{path}.volumeMounts[{i}].name"))
        elif volume not in volumes:
            causes.append(_not_found(f"{path}.volumeMounts[{i}].name", volume))
        if not mount_path:
            causes.append(_required(f"{path}.volumeMounts[{i}].mountPath"))
        elif mount_path in mount_points:
            causes.append(_invalid(f"{path}.volumeMounts[{i}].mountPath", mount_path, "must be unique"))
        mount_points.add(mount_path)
    policy = container.get("imagePullPolicy")
    if policy and policy not in _PULL_POLICIES:
        causes.append(_not_supported(f"{path}.imagePullPolicy", policy, _PULL_POLICIES))
    causes += _resources(_map(container.get("resources")), f"{path}.resources")
    return causes


def _volumes(spec: Mapping[str, Any], path: str, causes: list[Cause]) -> set[str]:
    names: set[str] = set()
    for i, volume in enumerate(_list(spec.get("volumes"))):
        name = _str(_map(volume).get("name"))
        if not name:
            causes.append(_required(f"{path}.volumes[{i}].name"))
        else:
            causes += [_invalid(f"{path}.volumes[{i}].name", name, m) for m in dns1123_label_errors(name)]
        if name in names:
            causes.append(_duplicate(f"{path}.volumes[{i}].name", name))
        names.add(name)
    return names


def _pod_spec(spec: Mapping[str, Any], path: str) -> list[Cause]:
    causes: list[Cause] = []
    volumes = _volumes(spec, path, causes)
    containers = [_map(c) for c in _list(spec.get("containers"))]
    seen: set[str] = set()
    if not containers:
        causes.append(_required(f"{path}.containers"))
    for i, container in enumerate(containers):
        causes += _container(container, f"{path}.containers[{i}]", volumes)
        name = _str(container.get("name"))
        if name in seen:
            causes.append(_duplicate(f"{path}.containers[{i}].name", name))
        seen.add(name)
    for i, container in enumerate(_map(c) for c in _list(spec.get("initContainers"))):
        causes += _container(container, f"{path}.initContainers[{i}]", volumes)
        name = _str(container.get("name"))
        if name in seen:
            causes.append(_duplicate(f"{path}.initContainers[{i}].name", name))
        elif name:
            seen.add(name)
    policy = spec.get("restartPolicy")
    if policy and policy not in _RESTART_POLICIES:
        causes.append(_not_supported(f"{path}.restartPolicy", policy, _RESTART_POLICIES))
    for i, gate in enumerate(_list(spec.get("readinessGates"))):
        condition = _str(_map(gate).get("conditionType"))
        gate_path = f"{path}.readinessGates[{i}].conditionType"
        causes += [_invalid(gate_path, condition, msg) for msg in qualified_name_errors(condition)]
    return causes


# --- kinds ----------------------------------------------------------------------------------

_TEMPLATES = {
    "Deployment": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "ReplicationController": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
    "PodTemplate": ("template",),
}
_JOB_KINDS = {"Job", "CronJob"}
_JOB_RESTART_POLICIES = ("OnFailure", "Never")
_REPLICATED_KINDS = {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ReplicationController"}


def _template(kind: str, obj: Mapping[str, Any]) -> list[Cause]:
    steps = _TEMPLATES[kind]
    path = ".".join(steps)
    template: Mapping[str, Any] = obj
    for step in steps:
        template = _map(template.get(step))
    meta, spec = _map(template.get("metadata")), _map(template.get("spec"))
    # The template's ObjectMeta is inlined in Go, so these paths skip `metadata`.
    causes = _labels(meta.get("labels"), f"{path}.labels")
    causes += _annotations(meta.get("annotations"), f"{path}.annotations")
    causes += _pod_spec(spec, f"{path}.spec")
    policy = spec.get("restartPolicy") or "Always"
    if kind in _JOB_KINDS and policy not in _JOB_RESTART_POLICIES:
        causes.append(_not_supported(f"{path}.spec.restartPolicy", policy, _JOB_RESTART_POLICIES))
    elif kind in _REPLICATED_KINDS and policy != "Always":
        causes.append(_not_supported(f"{path}.spec.restartPolicy", policy, ["Always"]))
    return causes


def _service(spec: Mapping[str, Any]) -> list[Cause]:
    causes = _labels(spec.get("selector"), "spec.selector")
    ports = [_map(port) for port in _list(spec.get("ports"))]
    headless = spec.get("clusterIP") == "None"
    if not ports and not headless and spec.get("type") != "ExternalName":
        causes.append(_required("spec.ports"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        name = _str(port.get("name"))
        if len(ports) > 1 and not name:
            causes.append(_required(f"spec.ports[{i}].name"))
        elif name:
            causes += [_invalid(f"spec.ports[{i}].name", name, m) for m in dns1123_label_errors(name)]
            if name in names:
                causes.append(_duplicate(f"spec.ports[{i}].name", name))
            names.add(name)
        number = port.get("port", 0)
        if not isinstance(number, int) or not 1 <= number <= 65535:
            causes.append(_invalid(f"spec.ports[{i}].port", number, _PORT_RANGE))
    return causes


def validate_object(kind: str, obj: Mapping[str, Any], namespaced: bool) -> list[Cause]:
    """Every cause the API server would list when rejecting `obj` on create or update."""
    causes = _object_meta(kind, _map(obj.get("metadata")), namespaced)
    spec = _map(obj.get("spec"))
    if kind in _REPLICATED_KINDS:
        replicas = spec.get("replicas")
        if isinstance(replicas, int) and replicas < 0:
            causes.append(_invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
    if kind == "Pod":
        causes += _pod_spec(spec, "spec")
    elif kind == "Service":
        causes += _service(spec)
    elif kind in _TEMPLATES:
        causes += _template(kind, obj)
    return causes


_GROUPS = {
    **dict.fromkeys(("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"), "apps"),
    **dict.fromkeys(("Job", "CronJob"), "batch"),
    **dict.fromkeys(
        ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"), "rbac.authorization.k8s.io"
    ),
    **dict.fromkeys(("Ingress", "IngressClass", "NetworkPolicy"), "networking.k8s.io"),
    "Lease": "coordination.k8s.io",
    "EndpointSlice": "discovery.k8s.io",
    "CustomResourceDefinition": "apiextensions.k8s.io",
    "PodDisruptionBudget": "policy",
    "HorizontalPodAutoscaler": "autoscaling",
    "StorageClass": "storage.k8s.io",
    "PriorityClass": "scheduling.k8s.io",
    "Notebook": "kubeflow.org",
}


def format_invalid_message(
    kind: str, name: str, causes: Iterable[Mapping[str, Any]], group: str | None = None
) -> str:
    """`Deployment.apps "web" is invalid: <field>: <message>` (several causes in brackets)."""
    group = _GROUPS.get(kind, "") if group is None else group
    head = f"{kind}.{group}" if group else kind
    head = f"{head} {go_quote(name)} is invalid"
    errors: list[str] = []
    for cause in causes:
        text = f"{cause.get('field', '')}: {cause.get('message', '')}"
        if text not in errors:
            errors.append(text)
    if not errors:
        return head
    if len(errors) == 1:
        return f"{head}: {errors[0]}"
    return f"{head}: [{', '.join(errors)}]"


# --- loose JSON access ----------------------------------------------------------------------


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""
