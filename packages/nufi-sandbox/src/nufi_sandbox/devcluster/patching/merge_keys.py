"""The patch tags of the built-in Go types (`patchStrategy`, `patchMergeKey`), reproduced per kind.

A strategic merge patch merges a list by a key only where the Go field says so; everywhere else a
list in the patch replaces the live one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FieldPatchMeta:
    """The patch tags of one field: merge lists by `merge_key` ("" = set of primitives)."""

    merge: bool = False
    merge_key: str = ""
    schema: MergeKeys | None = None


@dataclass(frozen=True)
class MergeKeys:
    """Patch tags of one Go struct, walked field by field while a patch is merged."""

    fields: Mapping[str, FieldPatchMeta] = field(default_factory=dict)

    def meta(self, name: str) -> FieldPatchMeta:
        return self.fields.get(name, _PLAIN)

    def child(self, name: str) -> MergeKeys:
        schema = self.meta(name).schema
        return schema if schema is not None else _FREE

    def merge_key(self, path: str) -> str | None:
        """`spec.containers[].env` -> `name`; "" for a merged primitive list; None if replaced."""
        parts = [part.removesuffix("[]") for part in path.split(".")]
        schema = self
        for part in parts[:-1]:
            schema = schema.child(part)
        meta = schema.meta(parts[-1])
        return meta.merge_key if meta.merge else None


_PLAIN = FieldPatchMeta()
_FREE = MergeKeys()
_SET = FieldPatchMeta(merge=True)


def _keyed(key: str, schema: MergeKeys | None = None) -> FieldPatchMeta:
    return FieldPatchMeta(merge=True, merge_key=key, schema=schema)


def _has(schema: MergeKeys) -> FieldPatchMeta:
    return FieldPatchMeta(schema=schema)


def _struct(**fields: FieldPatchMeta) -> MergeKeys:
    return MergeKeys(fields)


_OBJECT_META = _struct(finalizers=_SET, ownerReferences=_keyed("uid"))
_CONTAINER = _struct(
    ports=_keyed("containerPort"),
    env=_keyed("name"),
    volumeMounts=_keyed("mountPath"),
    volumeDevices=_keyed("devicePath"),
)
_POD_SPEC = _struct(
    volumes=_keyed("name"),
    initContainers=_keyed("name", _CONTAINER),
    containers=_keyed("name", _CONTAINER),
    ephemeralContainers=_keyed("name", _CONTAINER),
    imagePullSecrets=_keyed("name"),
    hostAliases=_keyed("ip"),
    topologySpreadConstraints=_keyed("topologyKey"),
    schedulingGates=_keyed("name"),
    resourceClaims=_keyed("name"),
)
_POD_STATUS = _struct(
    conditions=_keyed("type"),
    podIPs=_keyed("ip"),
    hostIPs=_keyed("ip"),
    resourceClaimStatuses=_keyed("name"),
)
_POD_TEMPLATE = _struct(metadata=_has(_OBJECT_META), spec=_has(_POD_SPEC))
_TEMPLATED = _struct(template=_has(_POD_TEMPLATE))
_CONDITIONS = _struct(conditions=_keyed("type"))


def _kind(
    spec: MergeKeys | None = None, status: MergeKeys | None = None, **extra: FieldPatchMeta
) -> MergeKeys:
    fields = {"metadata": _has(_OBJECT_META), **extra}
    if spec is not None:
        fields["spec"] = _has(spec)
    if status is not None:
        fields["status"] = _has(status)
    return MergeKeys(fields)


_METADATA_ONLY = (
    *("ConfigMap", "Secret", "Endpoints", "EndpointSlice", "Event", "Lease", "PersistentVolume"),
    *("ResourceQuota", "LimitRange", "ControllerRevision", "PriorityClass", "StorageClass"),
    *("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"),
    *("Ingress", "IngressClass", "NetworkPolicy", "CustomResourceDefinition", "Scale"),
)
_KINDS: dict[str, MergeKeys] = {
    "Pod": _kind(_POD_SPEC, _POD_STATUS),
    "PodTemplate": _kind(template=_has(_POD_TEMPLATE)),
    "ReplicationController": _kind(_TEMPLATED, _CONDITIONS),
    "Deployment": _kind(_TEMPLATED, _CONDITIONS),
    "ReplicaSet": _kind(_TEMPLATED, _CONDITIONS),
    "StatefulSet": _kind(_TEMPLATED, _CONDITIONS),
    "DaemonSet": _kind(_TEMPLATED, _CONDITIONS),
    "Job": _kind(_TEMPLATED, _CONDITIONS),
    "CronJob": _kind(_struct(jobTemplate=_has(_struct(metadata=_has(_OBJECT_META), spec=_has(_TEMPLATED))))),
    "Service": _kind(_struct(ports=_keyed("port")), _CONDITIONS),
    "Node": _kind(_struct(podCIDRs=_SET), _struct(conditions=_keyed("type"), addresses=_keyed("type"))),
    "Namespace": _kind(status=_CONDITIONS),
    "PersistentVolumeClaim": _kind(status=_CONDITIONS),
    "ServiceAccount": _kind(secrets=_keyed("name")),
    "HorizontalPodAutoscaler": _kind(status=_CONDITIONS),
    "PodDisruptionBudget": _kind(status=_CONDITIONS),
    # resource.k8s.io/v1 marks every list atomic except the claim's consumers, merged by uid.
    "ResourceClaim": _kind(status=_struct(reservedFor=_keyed("uid"))),
    **{kind: _kind() for kind in ("DeviceClass", "ResourceClaimTemplate", "ResourceSlice")},
    **{kind: _kind() for kind in _METADATA_ONLY},
}


def merge_keys_for(kind: str) -> MergeKeys:
    """Patch metadata of a built-in kind; LookupError for kinds without it (answer 415)."""
    try:
        return _KINDS[kind]
    except KeyError:
        raise LookupError(f"strategic merge patch is not supported for kind {kind!r}") from None
