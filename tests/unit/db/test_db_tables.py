"""The schema as code: the names other code relies on."""

from __future__ import annotations

from sqlalchemy import Table

from nufi.db import AuditRecordRow, DeviceTypeRow


def table(model: type[DeviceTypeRow] | type[AuditRecordRow]) -> Table:
    found = model.__table__
    assert isinstance(found, Table)
    return found


def test_device_types_table_has_the_agreed_shape() -> None:
    device_types = table(DeviceTypeRow)
    assert device_types.name == "device_types"
    columns = {c.name: c for c in device_types.columns}
    assert [c.name for c in device_types.primary_key.columns] == ["id"]
    assert columns["id"].type.length == 63  # type: ignore[attr-defined]
    assert columns["resource_key"].type.length == 317  # type: ignore[attr-defined]
    assert columns["resource_key"].unique and not columns["resource_key"].nullable
    assert columns["thermal"].nullable
    nullable = {name for name, column in columns.items() if column.nullable}
    assert nullable == {"thermal"}
    names = {c.name for c in device_types.constraints}
    assert {"pk_device_types", "uq_device_types_resource_key", "ck_device_types_kind"} <= names


def test_audit_log_table_has_the_agreed_shape() -> None:
    audit_log = table(AuditRecordRow)
    assert audit_log.name == "audit_log"
    nullable = {c.name for c in audit_log.columns if c.nullable}
    assert nullable == {"before", "after", "details"}
    indexes = {i.name: [c.name for c in i.columns] for i in audit_log.indexes}
    assert indexes == {"ix_audit_log_target": ["target_kind", "target_id"], "ix_audit_log_at": ["at"]}
