"""Turning a Kubernetes REST path into (type, namespace, name, subresource).

The request info of `k8s.io/apiserver/pkg/endpoints/request`: `/api/v1/...` and `/apis/<group>/<version>/...`,
namespaced or not, with the legacy `/watch/` prefix; a path that names nothing served is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceRegistry, ResourceType

_NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True)
class Target:
    rt: ResourceType
    namespace: str | None  # None: across all namespaces (or a cluster-scoped type)
    name: str
    subresource: str
    legacy_watch: bool = False

    @property
    def is_collection(self) -> bool:
        return not self.name


def parse_path(registry: ResourceRegistry, path: str) -> Target:
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise errors.route_not_found()
    legacy_watch = bool(rest) and rest[0] == "watch"
    if legacy_watch:
        rest = rest[1:]
    namespace: str | None = None
    if (
        len(rest) >= 3
        and rest[0] == "namespaces"
        and not (len(rest) == 3 and rest[2] in _NAMESPACE_SUBRESOURCES and group == "")
    ):
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        raise errors.route_not_found()
    rt = registry.lookup(group, version, rest[0])
    if rt is None:
        raise errors.route_not_found()
    if namespace is not None and not rt.namespaced:
        raise errors.route_not_found()
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    if subresource and subresource not in rt.subresources:
        raise errors.route_not_found()
    if rt.namespaced and name and namespace is None:
        raise errors.route_not_found()
    return Target(rt, namespace, name, subresource, legacy_watch)
