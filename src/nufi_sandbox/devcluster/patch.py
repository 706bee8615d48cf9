"""The three PATCH content types of the Kubernetes API, applied to plain JSON objects.

`application/json-patch+json` (RFC 6902), `application/merge-patch+json` (RFC 7386) and
`application/strategic-merge-patch+json`, whose list handling follows the patch tags of the
built-in Go types (`patchStrategy`, `patchMergeKey`), reproduced here per kind.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonpatch


class PatchError(ValueError):
    """A patch that cannot be applied; `status` is the HTTP code a real API server answers with."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


# --- RFC 6902 and RFC 7386 --------------------------------------------------------------------

_JSON_PATCH_ERRORS = (
    jsonpatch.JsonPatchException,
    jsonpatch.JsonPointerException,
    TypeError,
    KeyError,
    IndexError,
    ValueError,
)


def apply_json_patch(obj: Mapping[str, Any], ops: Any) -> dict[str, Any]:
    """Apply RFC 6902 operations atomically: either all apply or the object is untouched."""
    if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
        raise PatchError("json patch must be a JSON array of operation objects", 400)
    document: Any = copy.deepcopy(dict(obj))
    for index, op in enumerate(ops):
        where = f"json patch operation {index} ({op.get('op')} {op.get('path')})"
        try:
            single = jsonpatch.JsonPatch([op])
        except _JSON_PATCH_ERRORS as exc:
            raise PatchError(f"{where} is malformed: {exc}", 400) from None
        try:
            document = single.apply(document, in_place=True)
        except _JSON_PATCH_ERRORS as exc:
            raise PatchError(f"{where} failed: {exc}") from None
    if not isinstance(document, dict):
        raise PatchError("json patch must leave a JSON object at the document root")
    return document


def _json_merge(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = _json_merge(result.get(key), value)
    return result


def apply_merge_patch(obj: Mapping[str, Any], patch: Any) -> dict[str, Any]:
    """RFC 7386: null deletes, objects merge recursively, everything else (lists too) replaces."""
    if not isinstance(patch, dict):
        raise PatchError("merge patch must be a JSON object", 400)
    merged: dict[str, Any] = _json_merge(copy.deepcopy(dict(obj)), patch)
    return merged


# --- patch metadata of the built-in types -----------------------------------------------------


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
    **{kind: _kind() for kind in _METADATA_ONLY},
}
STRATEGIC_MERGE_KINDS = frozenset(_KINDS)


def merge_keys_for(kind: str) -> MergeKeys:
    """Patch metadata of a built-in kind; LookupError for kinds without it (answer 415)."""
    try:
        return _KINDS[kind]
    except KeyError:
        raise LookupError(f"strategic merge patch is not supported for kind {kind!r}") from None


# --- strategic merge patch --------------------------------------------------------------------

_DIRECTIVE = "$patch"
_RETAIN_KEYS = "$retainKeys"
_DELETE_PREFIX = "$deleteFromPrimitiveList"
_ORDER_PREFIX = "$setElementOrder"


def apply_strategic_merge_patch(obj: Mapping[str, Any], patch: Any, merge_keys: MergeKeys) -> dict[str, Any]:
    """Merge `patch` into `obj` the way the API server does for built-in kinds."""
    if not isinstance(patch, dict):
        raise PatchError("invalid JSON document", 400)
    merged = _merge_map(copy.deepcopy(dict(obj)), copy.deepcopy(patch), merge_keys)
    cleaned: dict[str, Any] = _without_directives(merged)
    return cleaned


def _merge_map(original: dict[str, Any], patch: dict[str, Any], schema: MergeKeys) -> dict[str, Any]:
    if _DIRECTIVE in patch:
        directive = patch[_DIRECTIVE]
        if directive == "replace":
            del patch[_DIRECTIVE]
            return _drop_nulls(patch)  # type: ignore[no-any-return]
        if directive == "delete":
            return {}
        raise PatchError(f"unknown patch type: {_go(directive)} in map: {_go(patch)}", 500)
    _apply_retain_keys(original, patch)
    _apply_element_orders(original, patch, schema)
    for key, value in patch.items():
        target, delete_list = key, key.startswith(_DELETE_PREFIX)
        if delete_list:
            target = _directive_field(key, _DELETE_PREFIX, "invalid patch format of primitive list")
        if value is None:
            original.pop(target, None)
            continue
        current = original.get(target)
        if target not in original or _go_type(current) != _go_type(value):
            if not delete_list:
                original[target] = _drop_nulls(value)
            continue
        if isinstance(current, dict):
            original[target] = _merge_map(current, value, schema.child(target))
        elif isinstance(current, list):
            original[target] = _merge_list(current, value, schema.meta(target), delete_list)
        else:
            original[target] = value
    return original


def _merge_list(original: list[Any], patch: list[Any], meta: FieldPatchMeta, delete_list: bool) -> list[Any]:
    if not (meta.merge or delete_list):
        return _drop_nulls(patch)  # type: ignore[no-any-return]
    if not original and not patch:
        return original
    if _element_type(original, patch) != "map":
        if delete_list:
            return [item for item in original if not any(_same(item, gone) for gone in patch)]
        return _ordered(_unique(original + patch), patch, original, "")
    key = meta.merge_key
    if not key:
        raise PatchError("cannot merge lists without merge key", 500)
    original, patch = _special_elements(original, patch, key)
    schema = meta.schema if meta.schema is not None else _FREE
    merged = list(original)
    for element in patch:
        _require_key(element, key)
        index = next((i for i, item in enumerate(merged) if _key_equal(item, element, key)), None)
        if index is None:
            merged.append(_drop_nulls(element))
        else:
            merged[index] = _merge_map(merged[index], element, schema)
    return _ordered(merged, patch, original, key)


def _special_elements(original: list[Any], patch: list[Any], key: str) -> tuple[list[Any], list[Any]]:
    """Apply `$patch: delete` elements; `$patch: replace` makes the rest of the patch the list."""
    kept, replace = [], False
    for element in patch:
        if _DIRECTIVE not in element:
            kept.append(element)
            continue
        directive = element[_DIRECTIVE]
        if directive == "delete":
            _require_key(element, key)
            original = [item for item in original if not _key_equal(item, element, key)]
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise PatchError("merging lists cannot yet be specified in the patch", 500)
        else:
            raise PatchError(f"unknown patch type: {_go(directive)} in map: {_go(element)}", 500)
    return ([_drop_nulls(item) for item in kept], []) if replace else (original, kept)


def _ordered(merged: list[Any], order: list[Any], server: list[Any], key: str) -> list[Any]:
    """Order a merged list as the API server does.

    Items named by the patch (or its `$setElementOrder`) keep the patch's order; the others keep
    the live order and are slotted in ahead of a patch item only when the live list already had
    them in front of it, so a brand-new item lands before the remaining live items.
    """
    if key:
        for item in (*merged, *order, *server):
            _require_key(item, key)

    def position(sequence: list[Any], item: Any) -> int:
        return next((i for i, other in enumerate(sequence) if _key_equal(other, item, key)), -1)

    def live_rank(item: Any) -> int:
        found = position(server, item)
        return found if found >= 0 else len(server)

    named = sorted((m for m in merged if position(order, m) >= 0), key=lambda m: position(order, m))
    rest = sorted((m for m in merged if position(order, m) < 0), key=live_rank)
    result, i, j = [], 0, 0
    while i < len(rest) or j < len(named):
        if j >= len(named):
            result.append(rest[i])
            i += 1
            continue
        if i < len(rest):
            left, right = position(server, rest[i]), position(server, named[j])
            if 0 <= left < right:
                result.append(rest[i])
                i += 1
                continue
        result.append(named[j])
        j += 1
    return result


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    if _RETAIN_KEYS not in patch:
        return
    retained = patch.pop(_RETAIN_KEYS)
    if not isinstance(retained, list):
        raise PatchError("invalid patch format of retainKeys", 400)
    keep = {name for name in retained if isinstance(name, str)}
    for key, value in patch.items():
        if value is not None and not key.startswith((_DELETE_PREFIX, _ORDER_PREFIX)) and key not in keep:
            raise PatchError("invalid patch format of retainKeys", 400)
    for key in [key for key in original if key not in keep]:
        del original[key]


def _apply_element_orders(original: dict[str, Any], patch: dict[str, Any], schema: MergeKeys) -> None:
    for directive in [key for key in patch if key.startswith(_ORDER_PREFIX)]:
        order = patch.pop(directive)
        name = _directive_field(directive, _ORDER_PREFIX, "invalid patch format of setElementOrder list")
        current, incoming = original.get(name), patch.get(name)
        for value in (order, current, incoming):
            if value is not None and not isinstance(value, list):
                raise PatchError(f"expected a []interface {{}}, but received a {_go_type(value)}", 500)
        meta = schema.meta(name)
        key = meta.merge_key if meta.merge else ""
        _check_order(incoming or [], order, key)
        if current is not None and incoming is not None:
            merged = _merge_list(current, incoming, meta, False)
        elif incoming is not None:
            merged = _drop_nulls(incoming)
        elif current is not None:
            merged = current
        else:
            continue
        if key or all(not isinstance(item, dict | list) for item in merged):
            merged = _ordered(merged, order, current or [], key)
        original[name] = merged
        patch.pop(name, None)


def _check_order(patch_list: list[Any], order: list[Any], key: str) -> None:
    """Every patch item must appear in `$setElementOrder`, in the same relative order."""
    if not patch_list or not order:
        return
    items = [item for item in patch_list if not (isinstance(item, dict) and item.get(_DIRECTIVE) == "delete")]
    p = s = 0
    while p < len(items) and s < len(order):
        if isinstance(items[p], dict) and _DIRECTIVE in items[p]:
            p += 1
            continue
        if key:
            _require_key(items[p], key)
            _require_key(order[s], key)
        if _key_equal(items[p], order[s], key):
            p += 1
        s += 1
    if p < len(items):
        raise PatchError(
            f"The order in patch list:\n{_go(patch_list)}\n doesn't match "
            f"{_ORDER_PREFIX} list:\n{_go(order)}\n",
            500,
        )


# --- helpers ----------------------------------------------------------------------------------


def _directive_field(key: str, prefix: str, message: str) -> str:
    head, _, tail = key.partition("/")
    if head != prefix or not tail:
        raise PatchError(message, 400)
    return tail


def _require_key(item: Any, key: str) -> None:
    if not isinstance(item, dict):
        raise PatchError(f"expected a map[string]interface {{}}, but received a {_go_type(item)}", 500)
    if key not in item:
        raise PatchError(f"map: {_go(item)} does not contain declared merge key: {key}", 500)


def _key_equal(left: Any, right: Any, key: str) -> bool:
    if not key:
        return _same(left, right)
    return isinstance(left, dict) and key in left and _same(left[key], right[key])


def _same(left: Any, right: Any) -> bool:
    """Equality of decoded JSON values as Go compares them (all numbers are float64)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    return type(left) is type(right) and bool(left == right)


def _unique(values: list[Any]) -> list[Any]:
    unique: list[Any] = []
    for value in values:
        if not any(_same(value, seen) for seen in unique):
            unique.append(value)
    return unique


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "float64"
    return "string" if isinstance(value, str) else "nil"


def _element_type(*lists: list[Any]) -> str:
    types = {_go_type(item) for items in lists for item in items}
    if "[]interface {}" in types:
        raise PatchError("lists of lists are not supported", 422)
    if len(types) > 1:
        raise PatchError(f"list element types are not identical: {_go(list(lists))}", 500)
    return "map" if types == {"map[string]interface {}"} else "scalar"


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(item) for item in value]
    return value


def _without_directives(value: Any) -> Any:
    # No field of a built-in type starts with "$", so leftovers are directives the decoder drops.
    if isinstance(value, dict):
        return {k: _without_directives(v) for k, v in value.items() if not k.startswith("$")}
    if isinstance(value, list):
        return [_without_directives(item) for item in value]
    return value


def _go(value: Any) -> str:
    """Go's %v rendering of decoded JSON, for error messages that match the API server's."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go(item) for item in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
