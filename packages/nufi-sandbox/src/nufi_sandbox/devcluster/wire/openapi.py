"""Just enough OpenAPI v3 for kubectl to see that the server validates fields itself.

kubectl downloads `/openapi/v3/<group-version>` and looks for the `fieldValidation` query parameter on
the operation carrying the resource's `x-kubernetes-group-version-kind`; finding it, it leaves validation
to the server instead of demanding a full schema. No schemas are published: objects are free-form here.
"""

from __future__ import annotations

import hashlib
from typing import Any

from nufi_sandbox.devcluster.resources import ResourceRegistry, ResourceType
from nufi_sandbox.devcluster.wire.discovery import SERVER_VERSION

_FIELD_VALIDATION = {
    "name": "fieldValidation",
    "in": "query",
    "schema": {"type": "string", "uniqueItems": True},
}


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def index(registry: ResourceRegistry) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    gvs = {(rt.group, rt.version) for rt in registry.all()}
    for group, version in sorted(gvs):
        doc_path = _gv_path(group, version)
        digest = hashlib.sha256(repr(document(registry, group, version)).encode()).hexdigest()[:16].upper()
        paths[doc_path] = {"serverRelativeURL": f"/openapi/v3/{doc_path}?hash={digest}"}
    return {"paths": paths}


def _operation(rt: ResourceType, verb: str) -> dict[str, Any]:
    return {
        "operationId": f"{verb}{rt.kind}",
        "parameters": [_FIELD_VALIDATION],
        "responses": {"200": {"description": "OK"}},
        "x-kubernetes-action": verb,
        "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
    }


def document(registry: ResourceRegistry, group: str, version: str) -> dict[str, Any] | None:
    types = registry.in_group_version(group, version)
    if not types:
        return None
    paths: dict[str, Any] = {}
    base = "/" + _gv_path(group, version)
    for rt in types:
        scope = f"{base}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else f"{base}/{rt.plural}"
        paths[scope] = {"post": _operation(rt, "post")}
        paths[f"{scope}/{{name}}"] = {"put": _operation(rt, "put"), "patch": _operation(rt, "patch")}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": SERVER_VERSION["gitVersion"]},
        "paths": paths,
        "components": {"schemas": {}},
    }
