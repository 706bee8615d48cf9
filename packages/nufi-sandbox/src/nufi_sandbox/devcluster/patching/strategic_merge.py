"""`application/strategic-merge-patch+json` as the API server applies it to built-in kinds.

Lists merge by the key the kind's patch tags name (see merge_keys), and the patch directives
(`$patch`, `$retainKeys`, `$deleteFromPrimitiveList`, `$setElementOrder`) work as in apimachinery's
strategicpatch, down to the wording of its errors.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.patching.json_patch import PatchError
from nufi_sandbox.devcluster.patching.merge_keys import FieldPatchMeta, MergeKeys

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
    schema = meta.schema if meta.schema is not None else MergeKeys()
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
