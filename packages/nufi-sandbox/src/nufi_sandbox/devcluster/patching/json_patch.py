"""PATCH bodies of the Kubernetes API applied to plain JSON objects, and the error they raise.

Here `application/json-patch+json` (RFC 6902) and `application/merge-patch+json` (RFC 7386);
`application/strategic-merge-patch+json` is in strategic_merge, with its patch tags in merge_keys.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
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
