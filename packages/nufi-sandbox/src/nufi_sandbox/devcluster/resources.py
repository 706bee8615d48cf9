"""The resource types the dev cluster serves, and the registry that maps REST paths onto them.

Built-in types are listed here; custom resources join the registry when their CustomResourceDefinition
is created, exactly like the real API server, so discovery and REST paths appear only then.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Field selectors every type supports; the extra ones per kind mirror the real API server's lists.
COMMON_FIELDS = ("metadata.name", "metadata.namespace")


@dataclass(frozen=True)
class ResourceType:
    group: str  # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    singular: str = ""
    short_names: tuple[str, ...] = ()
    subresources: frozenset[str] = frozenset()
    extra_fields: tuple[str, ...] = ()
    # Custom resources accept no strategic-merge patches: there is no Go struct to read merge keys from.
    strategic_merge: bool = True
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = (
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch",
    )

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def key(self) -> tuple[str, str]:
        """Storage key: objects live once per group and plural, whatever version reads them."""
        return (self.group, self.plural)

    @property
    def field_selectors(self) -> tuple[str, ...]:
        return COMMON_FIELDS + self.extra_fields

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()


def _core(kind: str, plural: str, namespaced: bool, **kw: Any) -> ResourceType:
    return ResourceType("", "v1", kind, plural, namespaced, **kw)


_STATUS = frozenset({"status"})
_STATUS_SCALE = frozenset({"status", "scale"})

BUILTIN_TYPES: tuple[ResourceType, ...] = (
    _core(
        "Namespace",
        "namespaces",
        False,
        short_names=("ns",),
        subresources=_STATUS,
        extra_fields=("status.phase",),
    ),
    _core(
        "Node",
        "nodes",
        False,
        short_names=("no",),
        subresources=_STATUS,
        extra_fields=("spec.unschedulable",),
    ),
    _core(
        "Pod",
        "pods",
        True,
        short_names=("po",),
        subresources=frozenset({"status", "binding"}),
        extra_fields=(
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ),
        categories=("all",),
    ),
    _core("Service", "services", True, short_names=("svc",), subresources=_STATUS, categories=("all",)),
    _core("ConfigMap", "configmaps", True, short_names=("cm",)),
    _core("Secret", "secrets", True, extra_fields=("type",)),
    _core(
        "Event",
        "events",
        True,
        short_names=("ev",),
        extra_fields=(
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "reason",
            "type",
            "source",
        ),
    ),
    _core(
        "PersistentVolumeClaim", "persistentvolumeclaims", True, short_names=("pvc",), subresources=_STATUS
    ),
    _core("ServiceAccount", "serviceaccounts", True, short_names=("sa",)),
    _core("ResourceQuota", "resourcequotas", True, short_names=("quota",), subresources=_STATUS),
    _core("Endpoints", "endpoints", True, short_names=("ep",)),
    ResourceType(
        "apps",
        "v1",
        "Deployment",
        "deployments",
        True,
        short_names=("deploy",),
        subresources=_STATUS_SCALE,
        categories=("all",),
    ),
    ResourceType(
        "apps",
        "v1",
        "ReplicaSet",
        "replicasets",
        True,
        short_names=("rs",),
        subresources=_STATUS_SCALE,
        categories=("all",),
    ),
    ResourceType(
        "apps",
        "v1",
        "StatefulSet",
        "statefulsets",
        True,
        short_names=("sts",),
        subresources=_STATUS_SCALE,
        categories=("all",),
    ),
    ResourceType(
        "apps",
        "v1",
        "DaemonSet",
        "daemonsets",
        True,
        short_names=("ds",),
        subresources=_STATUS,
        categories=("all",),
    ),
    ResourceType("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", True),
    # Dynamic Resource Allocation, GA in 1.34: upstream gives these no short names and no categories.
    ResourceType("resource.k8s.io", "v1", "DeviceClass", "deviceclasses", False),
    ResourceType("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", True, subresources=_STATUS),
    ResourceType("resource.k8s.io", "v1", "ResourceClaimTemplate", "resourceclaimtemplates", True),
    ResourceType(
        "resource.k8s.io",
        "v1",
        "ResourceSlice",
        "resourceslices",
        False,
        extra_fields=("spec.nodeName", "spec.driver"),
    ),
    ResourceType("coordination.k8s.io", "v1", "Lease", "leases", True),
    # Stored and served, never enforced: every caller of the dev cluster may do everything.
    ResourceType("rbac.authorization.k8s.io", "v1", "Role", "roles", True),
    ResourceType("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", True),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False),
    ResourceType(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        False,
        short_names=("crd", "crds"),
        subresources=_STATUS,
    ),
)


@dataclass
class ResourceRegistry:
    """Resolves (group, version, plural) to a type; custom types come and go with their CRDs."""

    _types: dict[tuple[str, str, str], ResourceType] = field(default_factory=dict)
    _by_crd: dict[str, list[ResourceType]] = field(default_factory=dict)

    @classmethod
    def with_builtins(cls) -> ResourceRegistry:
        registry = cls()
        for rt in BUILTIN_TYPES:
            registry.add(rt)
        return registry

    def add(self, rt: ResourceType) -> None:
        self._types[(rt.group, rt.version, rt.plural)] = rt

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._types.get((group, version, plural))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        group, _, version = api_version.rpartition("/")
        for rt in self._types.values():
            if rt.group == group and rt.version == version and rt.kind == kind:
                return rt
        return None

    def all(self) -> Iterable[ResourceType]:
        return list(self._types.values())

    def groups(self) -> dict[str, list[str]]:
        """Group name → served versions, core group excluded (it lives under /api)."""
        out: dict[str, list[str]] = {}
        for group, version, _ in self._types:
            if group and version not in out.setdefault(group, []):
                out[group].append(version)
        return out

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        return [rt for (g, v, _), rt in self._types.items() if g == group and v == version]

    def register_crd(self, crd: dict[str, Any]) -> list[ResourceType]:
        """Serve the custom resource a CRD declares; returns the types it added."""
        self.unregister_crd(crd["metadata"]["name"])
        spec = crd.get("spec", {})
        names = spec.get("names", {})
        added = []
        for version in spec.get("versions", []):
            if not version.get("served", True):
                continue
            subresources = frozenset(version.get("subresources", {}) or {})
            rt = ResourceType(
                group=spec["group"],
                version=version["name"],
                kind=names["kind"],
                plural=names["plural"],
                namespaced=spec.get("scope", "Namespaced") == "Namespaced",
                singular=names.get("singular", ""),
                short_names=tuple(names.get("shortNames", ())),
                subresources=subresources,
                strategic_merge=False,
                categories=tuple(names.get("categories", ())),
            )
            self.add(rt)
            added.append(rt)
        self._by_crd[crd["metadata"]["name"]] = added
        return added

    def unregister_crd(self, name: str) -> list[ResourceType]:
        removed = self._by_crd.pop(name, [])
        for rt in removed:
            self._types.pop((rt.group, rt.version, rt.plural), None)
        return removed
