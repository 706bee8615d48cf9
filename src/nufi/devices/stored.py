"""Device types as the database stores them: rows to device types and back.

A custom type is its row. An official type is its built-in preset with the fields admins may change
taken from its row, if it has one (the preset alone is revision 1).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from nufi.db import DeviceTypeChanges, DeviceTypeRow, NewDeviceType
from nufi.devices.presets import official_preset
from nufi.devices.spec import DeviceType
from nufi.errors import Conflict, NotFound
from nufi.messages.validation import validation_message

# A row's columns, in the order a device type's fields come.
_COLUMNS = (
    "id",
    "kind",
    "revision",
    "name",
    "vendor",
    "enabled",
    "resource_key",
    "labels",
    "metrics",
    "thermal",
    "fetcher",
)


class UnreadableDeviceType(Conflict):
    """A stored row no longer makes a valid device type (e.g. saved before a bound was introduced)."""


def row_values(device_type: DeviceType) -> DeviceTypeChanges:
    """What a row stores of a device type, besides its id, kind and revision."""
    data = device_type.model_dump(mode="json")
    return {
        "name": data["name"],
        "vendor": data["vendor"],
        "enabled": data["enabled"],
        "resource_key": data["resource_key"],
        "labels": data["labels"],
        "metrics": data["metrics"],
        "thermal": data["thermal"],
        "fetcher": data["fetcher"],
    }


def new_row(device_type: DeviceType, kind: str) -> NewDeviceType:
    # Spelled out: a TypedDict of changes may lack any key, a new row may not.
    values = row_values(device_type)
    return {
        "id": device_type.id,
        "kind": kind,
        "name": values["name"],
        "vendor": values["vendor"],
        "enabled": values["enabled"],
        "resource_key": values["resource_key"],
        "labels": values["labels"],
        "metrics": values["metrics"],
        "thermal": values["thermal"],
        "fetcher": values["fetcher"],
    }


def custom_type(row: DeviceTypeRow) -> DeviceType:
    """A custom device type from its row."""
    return _validated(row, stored_view(row))


def overlay(preset: DeviceType, row: DeviceTypeRow | None) -> DeviceType:
    """An official type as the admins left it: the preset plus their overrides; the preset is revision 1."""
    if row is None:
        return preset
    changes = {
        "enabled": row.enabled,
        "labels": row.labels,
        "metrics": row.metrics,
        "thermal": row.thermal,
        "revision": row.revision + 1,
    }
    return _validated(row, {**preset.model_dump(mode="json"), **changes})


def resolve(device_type_id: str, row: DeviceTypeRow | None) -> DeviceType:
    """The device type `device_type_id` names, official or custom; NotFound when there is none."""
    preset = official_preset(device_type_id)
    if preset is not None:
        return overlay(preset, row)
    if row is None:
        raise NotFound(code="device_type.not_found", device_type=device_type_id)
    return custom_type(row)


def stored_view(row: DeviceTypeRow) -> dict[str, Any]:
    """A row's values as stored, whether or not they still make a valid device type."""
    return {column: getattr(row, column) for column in _COLUMNS}


def first_problem(exc: ValidationError) -> tuple[str, dict[str, Any]]:
    """The dotted field of a validation error's first problem, and the reason as `{code, params}`."""
    first = exc.errors()[0]
    return ".".join(str(part) for part in first["loc"]), validation_message(first).to_data()


def _validated(row: DeviceTypeRow, data: dict[str, Any]) -> DeviceType:
    try:
        return DeviceType.model_validate(data)
    except ValidationError as exc:
        where, reason = first_problem(exc)
        if row.kind == "official":
            raise UnreadableDeviceType(
                code="device_type.unreadable_official",
                params={"reason": reason},
                device_type=row.id,
                field=where,
            ) from None
        raise UnreadableDeviceType(
            code="device_type.unreadable_custom", params={"reason": reason}, device_type=row.id, field=where
        ) from None


def audit_before(row: DeviceTypeRow, preset: DeviceType | None) -> dict[str, Any]:
    """What a row held before it goes: as a device type, or as stored when it no longer is a valid one."""
    try:
        return audit_view(overlay(preset, row) if preset is not None else custom_type(row))
    except UnreadableDeviceType:
        return stored_view(row)


def audit_view(device_type: DeviceType) -> dict[str, Any]:
    view: dict[str, Any] = device_type.model_dump(mode="json")
    return view
