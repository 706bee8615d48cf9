"""Field validation of the API server, producing the causes of an `Invalid` (422) Status.

Covers object metadata for every kind, Services, and the pod spec of Pods and of workload templates
(see pod_spec) in the detail a client notices. Order and wording follow
`k8s.io/kubernetes/pkg/apis/core/validation`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from nufi_sandbox.devcluster.dra.objects import DRA_KINDS
from nufi_sandbox.devcluster.dra.validation import dra_spec_causes
from nufi_sandbox.devcluster.validation.field_causes import (
    Cause,
    as_list,
    as_map,
    as_str,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from nufi_sandbox.devcluster.validation.names import (
    dns1035_label_errors,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    go_quote,
    label_value_errors,
    qualified_name_errors,
)
from nufi_sandbox.devcluster.validation.pod_spec import PORT_RANGE, pod_spec_causes
from nufi_sandbox.devcluster.validation.quota_spec import resource_quota_causes

__all__ = ["Cause", "format_invalid_message", "validate_object"]

# --- names ----------------------------------------------------------------------------------


def _path_segment_errors(value: str) -> list[str]:
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{char}'" for char in "/%" if char in value]


_NAME_RULES = {
    "Namespace": dns1123_label_errors,
    "Service": dns1035_label_errors,
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
    for key, value in as_map(labels).items():
        causes += [invalid(path, key, msg) for msg in qualified_name_errors(str(key))]
        if not isinstance(value, str):
            causes.append(invalid(path, value, "must be a string"))
            continue
        causes += [invalid(path, value, msg) for msg in label_value_errors(value)]
    return causes


def _annotations(annotations: object, path: str) -> list[Cause]:
    present = as_map(annotations)
    causes = [invalid(path, key, msg) for key in present for msg in qualified_name_errors(str(key).lower())]
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
    name, generate_name = as_str(meta.get("name")), as_str(meta.get("generateName"))
    if generate_name:
        for msg in _name_errors(kind, generate_name, prefix=True):
            causes.append(invalid("metadata.generateName", generate_name, msg))
    if name:
        causes += [invalid("metadata.name", name, msg) for msg in _name_errors(kind, name, prefix=False)]
    elif not generate_name:
        causes.append(required("metadata.name", "name or generateName is required"))
    namespace = as_str(meta.get("namespace"))
    if namespaced and not namespace:
        causes.append(required("metadata.namespace"))
    elif namespaced:
        causes += [invalid("metadata.namespace", namespace, m) for m in dns1123_label_errors(namespace)]
    elif namespace:
        causes.append(forbidden("metadata.namespace", "not allowed on this type"))
    causes += _labels(meta.get("labels"), "metadata.labels")
    causes += _annotations(meta.get("annotations"), "metadata.annotations")
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
        template = as_map(template.get(step))
    meta, spec = as_map(template.get("metadata")), as_map(template.get("spec"))
    # The template's ObjectMeta is inlined in Go, so these paths skip `metadata`.
    causes = _labels(meta.get("labels"), f"{path}.labels")
    causes += _annotations(meta.get("annotations"), f"{path}.annotations")
    causes += pod_spec_causes(spec, f"{path}.spec")
    policy = spec.get("restartPolicy") or "Always"
    if kind in _JOB_KINDS and policy not in _JOB_RESTART_POLICIES:
        causes.append(not_supported(f"{path}.spec.restartPolicy", policy, _JOB_RESTART_POLICIES))
    elif kind in _REPLICATED_KINDS and policy != "Always":
        causes.append(not_supported(f"{path}.spec.restartPolicy", policy, ["Always"]))
    return causes


def _service(spec: Mapping[str, Any]) -> list[Cause]:
    causes = _labels(spec.get("selector"), "spec.selector")
    ports = [as_map(port) for port in as_list(spec.get("ports"))]
    headless = spec.get("clusterIP") == "None"
    if not ports and not headless and spec.get("type") != "ExternalName":
        causes.append(required("spec.ports"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        name = as_str(port.get("name"))
        if len(ports) > 1 and not name:
            causes.append(required(f"spec.ports[{i}].name"))
        elif name:
            causes += [invalid(f"spec.ports[{i}].name", name, m) for m in dns1123_label_errors(name)]
            if name in names:
                causes.append(duplicate(f"spec.ports[{i}].name", name))
            names.add(name)
        number = port.get("port", 0)
        if not isinstance(number, int) or not 1 <= number <= 65535:
            causes.append(invalid(f"spec.ports[{i}].port", number, PORT_RANGE))
    return causes


def _claim_template_meta(obj: Mapping[str, Any]) -> list[Cause]:
    meta = as_map(as_map(obj.get("spec")).get("metadata"))
    return _labels(meta.get("labels"), "spec.metadata.labels") + _annotations(
        meta.get("annotations"), "spec.metadata.annotations"
    )


def validate_object(
    kind: str, obj: Mapping[str, Any], namespaced: bool, old: Mapping[str, Any] | None = None
) -> list[Cause]:
    """Every cause the API server would list when rejecting `obj` on create, or on update from `old`."""
    causes = _object_meta(kind, as_map(obj.get("metadata")), namespaced)
    if kind in DRA_KINDS:
        if kind == "ResourceClaimTemplate" and old is None:
            causes += _claim_template_meta(obj)
        return causes + dra_spec_causes(kind, obj, old)
    spec = as_map(obj.get("spec"))
    if kind in _REPLICATED_KINDS:
        replicas = spec.get("replicas")
        if isinstance(replicas, int) and replicas < 0:
            causes.append(invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
    if kind == "Pod":
        causes += pod_spec_causes(spec, "spec")
    elif kind == "Service":
        causes += _service(spec)
    elif kind == "ResourceQuota":
        causes += resource_quota_causes(obj)
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
