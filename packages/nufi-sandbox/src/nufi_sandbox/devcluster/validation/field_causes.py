"""The causes of an `Invalid` (422) Status, worded like k8s.io/apimachinery/pkg/util/validation/field.

Also the loose reads of decoded JSON that validation uses: a wrong type reads as empty, so a
malformed object produces causes rather than exceptions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from nufi_sandbox.devcluster.validation.names import go_quote


class Cause(TypedDict):
    """One `details.causes[]` entry of a Kubernetes Status."""

    reason: str
    message: str
    field: str


def _show(value: object) -> str:
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def invalid(path: str, value: object, detail: str) -> Cause:
    return Cause(reason="FieldValueInvalid", message=f"Invalid value: {_show(value)}: {detail}", field=path)


def required(path: str, detail: str = "") -> Cause:
    message = f"Required value: {detail}" if detail else "Required value"
    return Cause(reason="FieldValueRequired", message=message, field=path)


def not_supported(path: str, value: object, supported: Iterable[str]) -> Cause:
    listed = ", ".join(go_quote(option) for option in supported)
    message = f"Unsupported value: {_show(value)}: supported values: {listed}"
    return Cause(reason="FieldValueNotSupported", message=message, field=path)


def forbidden(path: str, detail: str) -> Cause:
    return Cause(reason="FieldValueForbidden", message=f"Forbidden: {detail}", field=path)


def duplicate(path: str, value: object) -> Cause:
    return Cause(reason="FieldValueDuplicate", message=f"Duplicate value: {_show(value)}", field=path)


def not_found(path: str, value: object) -> Cause:
    return Cause(reason="FieldValueNotFound", message=f"Not found: {_show(value)}", field=path)


def too_long(path: str, limit: int) -> Cause:
    unit = "byte" if limit == 1 else "bytes"
    return Cause(
        reason="FieldValueTooLong", message=f"Too long: may not be more than {limit} {unit}", field=path
    )


def too_many(path: str, actual: int, limit: int) -> Cause:
    items = "item" if limit == 1 else "items"
    message = f"Too many: {actual}: must have at most {limit} {items}"
    return Cause(reason="FieldValueTooMany", message=message, field=path)


def invalid_shown(path: str, shown: str, detail: str) -> Cause:
    """An `Invalid` cause whose value is already written as Go prints it (a struct, a device ID)."""
    return Cause(reason="FieldValueInvalid", message=f"Invalid value: {shown}: {detail}", field=path)


def as_map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: object) -> str:
    return value if isinstance(value, str) else ""
