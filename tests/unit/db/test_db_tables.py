"""The schema as code: the names other code relies on, and JSON-ready snapshots of rows."""

from __future__ import annotations

import json
from datetime import UTC, datetime

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


def test_device_type_snapshot_has_every_column_and_is_json() -> None:
    at = datetime(2026, 5, 1, 12, 30, tzinfo=UTC)
    row = DeviceTypeRow(
        id="lpu",
        name="HyperAccel LPU",
        vendor="HyperAccel",
        kind="custom",
        enabled=True,
        resource_key="hyperaccel.ai/lpu",
        labels={"node": "node"},
        metrics={"utilization": "lpu_utilization_percent"},
        thermal=None,
        revision=3,
        created_at=at,
        updated_at=at,
        created_by="alice",
        updated_by="bob",
    )
    snapshot = row.as_dict()
    assert set(snapshot) == {c.name for c in table(DeviceTypeRow).columns}
    assert snapshot["created_at"] == "2026-05-01T12:30:00+00:00"
    assert json.loads(json.dumps(snapshot)) == snapshot


def test_audit_snapshot_has_every_column_and_is_json() -> None:
    row = AuditRecordRow(
        id=7,
        at=datetime(2026, 5, 1, tzinfo=UTC),
        actor="alice",
        action="device_type.delete",
        target_kind="device_type",
        target_id="lpu",
        before={"enabled": True},
        after=None,
        details={"force": True},
    )
    snapshot = row.as_dict()
    assert set(snapshot) == {c.name for c in table(AuditRecordRow).columns}
    assert json.loads(json.dumps(snapshot)) == snapshot
