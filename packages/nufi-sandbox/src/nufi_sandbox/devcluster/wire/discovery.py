"""Discovery documents: what kubectl and client libraries read to map kinds onto REST paths.

The `/version`, `/api`, `/apis`, `/apis/<group>` and `/api[s]/.../<version>` answers of the API server
(APIVersions, APIGroupList, APIGroup, APIResourceList), versions ordered as Kubernetes orders them.
"""

from __future__ import annotations

import re
from typing import Any

from nufi_sandbox.devcluster.resources import ResourceRegistry, ResourceType

SERVER_VERSION = {
    "major": "1",
    "minor": "34",
    "gitVersion": "v1.34.0",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-08-27T00:00:00Z",
    "goVersion": "go1.24.6",
    "compiler": "gc",
    "platform": "linux/amd64",
}

_VERSION_RE = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(version: str) -> tuple[int, int, int]:
    """Kubernetes version ordering: GA before beta before alpha, higher numbers first."""
    match = _VERSION_RE.match(version)
    if not match:
        return (0, 0, 0)
    stage = {"alpha": 1, "beta": 2, None: 3}[match.group(2)]
    return (stage, int(match.group(1)), int(match.group(3) or 0))


def api_versions(server_address: str) -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def api_group(registry: ResourceRegistry, group: str) -> dict[str, Any] | None:
    versions = registry.groups().get(group)
    if not versions:
        return None
    ordered = sorted(versions, key=version_priority, reverse=True)
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in ordered]
    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "versions": entries,
        "preferredVersion": entries[0],
    }


def api_group_list(registry: ResourceRegistry) -> dict[str, Any]:
    groups = []
    for name in sorted(registry.groups()):
        group = api_group(registry, name)
        if group is not None:
            group.pop("kind")
            group.pop("apiVersion")
            groups.append(group)
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def resource_list(registry: ResourceRegistry, group: str, version: str) -> dict[str, Any] | None:
    types = registry.in_group_version(group, version)
    if not types:
        return None
    resources: list[dict[str, Any]] = []
    for rt in sorted(types, key=lambda t: t.plural):
        resources.append(_resource_entry(rt))
        for sub in sorted(rt.subresources):
            resources.append(_subresource_entry(rt, sub))
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": rt.api_version if (rt := types[0]) else version,
        "resources": resources,
    }


def _resource_entry(rt: ResourceType) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": rt.plural,
        "singularName": rt.singular_name,
        "namespaced": rt.namespaced,
        "kind": rt.kind,
        "verbs": list(rt.verbs),
        "storageVersionHash": "",
    }
    if rt.short_names:
        entry["shortNames"] = list(rt.short_names)
    if rt.categories:
        entry["categories"] = list(rt.categories)
    return entry


def _subresource_entry(rt: ResourceType, sub: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": f"{rt.plural}/{sub}",
        "singularName": "",
        "namespaced": rt.namespaced,
        "kind": rt.kind,
        "verbs": ["get", "patch", "update"],
    }
    if sub == "scale":
        entry.update(group="autoscaling", version="v1", kind="Scale")
    elif sub == "binding":
        entry.update(kind="Binding", verbs=["create"])
    return entry
