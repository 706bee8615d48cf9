"""What the real API server does to an object between decoding and storage: defaulting and validation.

Defaults are those a client would notice (pod scheduling fields, requests copied from limits, service
cluster IPs, status reset on create); validation delegates to `objects` and raises `Invalid`.
"""

from __future__ import annotations

import base64
import copy
import ipaddress
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.dra.objects import DRA_KINDS, default_dra_object
from nufi_sandbox.devcluster.dra.validation import dra_status_causes
from nufi_sandbox.devcluster.quota import ResourceQuotas
from nufi_sandbox.devcluster.resources import ResourceType
from nufi_sandbox.devcluster.selectors import label_selector_from_object
from nufi_sandbox.devcluster.validation.objects import format_invalid_message, validate_object
from nufi_sandbox.devcluster.validation.quota_spec import canonical_resource_list

if TYPE_CHECKING:
    from nufi_sandbox.devcluster.storage.store import Store

Obj = dict[str, Any]

_WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")
_SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
_DEFAULT_TOLERATIONS = (
    {
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
    {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
)
_POD_MUTABLE_MESSAGE = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
    "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
    "(allow it to be set to 1 if it was previously negative)"
)


class Admission:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._next_ip = int(_SERVICE_CIDR.network_address) + 10
        self.quota = ResourceQuotas(store)

    def on_create(self, rt: ResourceType, obj: Obj) -> None:
        kind = rt.kind
        if kind == "Pod":
            _default_pod_spec(obj.setdefault("spec", {}), for_pod=True)
            obj["status"] = {"phase": "Pending", "qosClass": _qos_class(obj["spec"])}
        elif kind in _WORKLOAD_KINDS:
            _default_workload(kind, obj)
        elif kind == "Service":
            self._default_service(obj, None)
        elif kind == "Namespace":
            obj["spec"] = {"finalizers": ["kubernetes"]}
            obj["status"] = {"phase": "Active"}
            labels = obj["metadata"].setdefault("labels", {})
            labels["kubernetes.io/metadata.name"] = obj["metadata"].get("name", "")
        elif kind == "Secret":
            _fold_string_data(obj)
        elif "status" in rt.subresources and kind not in ("Node", "CustomResourceDefinition"):
            obj.pop("status", None)
        if kind in DRA_KINDS and rt.group == "resource.k8s.io":
            default_dra_object(kind, obj)
        self._validate(rt, obj)
        if kind == "ResourceQuota":
            _canonical_hard(obj)
        # Validating admission runs last, on the defaulted and validated object.
        self.quota.admit(rt, obj)

    def on_update(self, rt: ResourceType, old: Obj, new: Obj, subresource: str) -> None:
        if rt.kind == "Pod" and subresource == "":
            _default_pod_spec(new.setdefault("spec", {}), for_pod=True)
            if _without_mutable(old.get("spec", {})) != _without_mutable(new.get("spec", {})):
                raise errors.invalid(
                    rt,
                    new["metadata"]["name"],
                    f'Pod "{new["metadata"]["name"]}" is invalid: spec: Forbidden: {_POD_MUTABLE_MESSAGE}',
                    [
                        {
                            "reason": "FieldValueForbidden",
                            "message": f"Forbidden: {_POD_MUTABLE_MESSAGE}",
                            "field": "spec",
                        }
                    ],
                )
        elif rt.kind in _WORKLOAD_KINDS and subresource == "":
            _default_workload(rt.kind, new)
        elif rt.kind == "Service" and subresource == "":
            self._default_service(new, old)
        elif rt.kind == "Secret":
            _fold_string_data(new)
        if rt.kind in DRA_KINDS and rt.group == "resource.k8s.io":
            default_dra_object(rt.kind, new)
            if subresource == "status":
                self._raise_if(rt, new, dra_status_causes(rt.kind, new, old))
        if subresource == "":
            self._validate(rt, new, old)
            if rt.kind == "ResourceQuota":
                _canonical_hard(new)
            self.quota.admit(rt, new, old)

    def _validate(self, rt: ResourceType, obj: Obj, old: Obj | None = None) -> None:
        causes = [dict(c) for c in validate_object(rt.kind, obj, rt.namespaced, old)]
        self._raise_if(rt, obj, causes + _selector_causes(rt.kind, obj))

    @staticmethod
    def _raise_if(rt: ResourceType, obj: Obj, causes: Sequence[Mapping[str, Any]]) -> None:
        if causes:
            name = obj.get("metadata", {}).get("name", "")
            message = format_invalid_message(rt.kind, name, causes, rt.group or None)
            raise errors.invalid(rt, name, message, [dict(c) for c in causes])

    def _default_service(self, obj: Obj, old: Obj | None) -> None:
        spec = obj.setdefault("spec", {})
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        spec.setdefault("internalTrafficPolicy", "Cluster")
        if old is not None and old.get("spec", {}).get("clusterIP"):
            spec.setdefault("clusterIP", old["spec"]["clusterIP"])
            spec.setdefault("clusterIPs", old["spec"].get("clusterIPs", [old["spec"]["clusterIP"]]))
        elif spec.get("clusterIP") != "None":
            spec["clusterIP"] = str(ipaddress.ip_address(self._next_ip))
            self._next_ip += 1
        if spec.get("clusterIP") and "clusterIPs" not in spec:
            spec["clusterIPs"] = [spec["clusterIP"]]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        for port in spec.get("ports", []):
            port.setdefault("protocol", "TCP")
            port.setdefault("targetPort", port.get("port"))
        obj["status"] = copy.deepcopy(old["status"]) if old and "status" in old else {"loadBalancer": {}}


def _canonical_hard(quota: Obj) -> None:
    spec = quota.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("hard"), dict):
        spec["hard"] = canonical_resource_list(spec["hard"])


def _default_workload(kind: str, obj: Obj) -> None:
    spec = obj.setdefault("spec", {})
    if kind != "DaemonSet":
        spec.setdefault("replicas", 1)
    spec.setdefault("revisionHistoryLimit", 10)
    if kind == "Deployment":
        spec.setdefault("progressDeadlineSeconds", 600)
        spec.setdefault(
            "strategy",
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
        )
    elif kind == "StatefulSet":
        spec.setdefault("podManagementPolicy", "OrderedReady")
        spec.setdefault("updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    elif kind == "DaemonSet":
        spec.setdefault(
            "updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
        )
    template_spec = spec.setdefault("template", {}).setdefault("spec", {})
    _default_pod_spec(template_spec, for_pod=False)
    obj.setdefault("status", {})


def _default_pod_spec(spec: Obj, *, for_pod: bool) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("securityContext", {})
    if for_pod:
        spec.setdefault("serviceAccountName", spec.get("serviceAccount", "default"))
        spec.setdefault("serviceAccount", spec["serviceAccountName"])
        spec.setdefault("enableServiceLinks", True)
        spec.setdefault("priority", 0)
        tolerations = spec.setdefault("tolerations", [])
        for default in _DEFAULT_TOLERATIONS:
            if not any(t.get("key") == default["key"] for t in tolerations):
                tolerations.append(dict(default))
    for group in ("initContainers", "containers"):
        for container in spec.get(group, []) or []:
            image = str(container.get("image", ""))
            tagless = ":" not in image.rsplit("/", 1)[-1] and "@" not in image
            container.setdefault(
                "imagePullPolicy", "Always" if tagless or image.endswith(":latest") else "IfNotPresent"
            )
            container.setdefault("terminationMessagePath", "/dev/termination-log")
            container.setdefault("terminationMessagePolicy", "File")
            resources = container.setdefault("resources", {})
            # Requests default to limits, which is what makes an extended-resource limit schedulable.
            limits = resources.get("limits") or {}
            if limits:
                requests = resources.setdefault("requests", {})
                for name, value in limits.items():
                    requests.setdefault(name, value)
            for port in container.get("ports", []) or []:
                port.setdefault("protocol", "TCP")


def _qos_class(spec: Obj) -> str:
    containers = spec.get("containers", []) or []
    compute = ("cpu", "memory")
    requests = [c.get("resources", {}).get("requests", {}) for c in containers]
    limits = [c.get("resources", {}).get("limits", {}) for c in containers]
    if not any(r.get(k) for r in requests + limits for k in compute):
        return "BestEffort"
    guaranteed = all(
        lim.get(k) and req.get(k, lim.get(k)) == lim.get(k)
        for req, lim in zip(requests, limits, strict=True)
        for k in compute
    )
    return "Guaranteed" if guaranteed else "Burstable"


def _without_mutable(spec: Obj) -> Obj:
    stripped = copy.deepcopy(spec)
    for group in ("containers", "initContainers"):
        for container in stripped.get(group, []) or []:
            container.pop("image", None)
    for field in ("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds", "nodeName"):
        stripped.pop(field, None)
    return stripped


def _fold_string_data(obj: Obj) -> None:
    string_data = obj.pop("stringData", None) or {}
    data = obj.setdefault("data", {})
    for key, value in string_data.items():
        data[key] = base64.b64encode(str(value).encode()).decode()
    obj.setdefault("type", "Opaque")


def _selector_causes(kind: str, obj: Obj) -> list[dict[str, Any]]:
    if kind not in _WORKLOAD_KINDS:
        return []
    spec = obj.get("spec", {})
    selector = spec.get("selector")
    if not selector:
        return [{"reason": "FieldValueRequired", "message": "Required value", "field": "spec.selector"}]
    labels = spec.get("template", {}).get("metadata", {}).get("labels", {}) or {}
    if not label_selector_from_object(selector).matches(labels):
        return [
            {
                "reason": "FieldValueInvalid",
                "message": f"Invalid value: map[string]string{_go_map(labels)}: "
                "`selector` does not match template `labels`",
                "field": "spec.template.metadata.labels",
            }
        ]
    return []


def _go_map(labels: dict[str, str]) -> str:
    """Go's %#v of a map[string]string, which the real message embeds."""
    return "{" + ", ".join(f'"{k}":"{v}"' for k, v in sorted(labels.items())) + "}"
