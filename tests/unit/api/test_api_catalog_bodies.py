"""The device catalog's response bodies, compared byte for byte with what the API answered before they
were models: a device type's own JSON with `inventory` (and `inventory_error` only when set) after it,
the saved type with `warnings`, and audit records; the literal bodies below were written by the old
hand-made code on the same objects."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from nufi.api.schemas.audit import AuditPage, AuditRecord
from nufi.api.schemas.devices import (
    DeviceTypeDetail,
    DeviceTypeView,
    DeviceTypeWithInventory,
    SavedDeviceType,
)
from nufi.db.tables import AuditRecordRow
from nufi.devices.audit import audit_page
from nufi.devices.capacity import Inventory, NodeInventory
from nufi.devices.catalog import CatalogEntry, SaveOutcome
from nufi.devices.presets import official_presets
from nufi.devices.spec import DeviceType

LPU = DeviceType.model_validate(
    {
        "id": "lpu",
        "name": "LPU",
        "vendor": "HyperAccel",
        "kind": "custom",
        "resource_key": "hyperaccel.ai/lpu",
        "labels": {"node": "node", "device": "device"},
        "metrics": {
            "utilization": "lpu_utilization_percent",
            "memory": {"mode": "used_free", "used": "lpu_memory_used_bytes", "free": "lpu_memory_free_bytes"},
        },
        "thermal": {"threshold_celsius": 90.0},
        "revision": 3,
    }
)
TYPES = [LPU, *official_presets()]
# The third node runs a pod holding the key but advertises none: it counts in the totals, not in `nodes`.
INVENTORY = Inventory(
    "hyperaccel.ai/lpu",
    (NodeInventory("lpu-1", 4, 4, 3), NodeInventory("lpu-2", 4, 3, 0), NodeInventory("lpu-3", 0, 0, 1)),
)
TOTALS = {"nodes": 2, "capacity": 8, "allocatable": 7, "allocated": 4}
PER_NODE = [
    {"node": "lpu-1", "capacity": 4, "allocatable": 4, "allocated": 3},
    {"node": "lpu-2", "capacity": 4, "allocatable": 3, "allocated": 0},
    {"node": "lpu-3", "capacity": 0, "allocatable": 0, "allocated": 1},
]
AUDITED = AuditRecordRow(
    id=7,
    at=datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC),
    actor="admin",
    action="device_type.update",
    target_kind="device_type",
    target_id="lpu",
    before={"revision": 1},
    after={"revision": 2, "name": "LPU v2"},
    details={"force": False, "warnings": []},
)
AUDITED_BODY = {
    "id": 7,
    "at": "2024-05-01T12:00:00.123456+00:00",
    "actor": "admin",
    "action": "device_type.update",
    "target_kind": "device_type",
    "target_id": "lpu",
    "before": {"revision": 1},
    "after": {"revision": 2, "name": "LPU v2"},
    "details": {"force": False, "warnings": []},
}
BARE = AuditRecordRow(
    id=8,
    at=datetime(2024, 5, 1, 12, 0, 1, tzinfo=UTC),
    actor="admin",
    action="device_type.delete",
    target_kind="device_type",
    target_id="lpu",
    before=None,
    after=None,
    details=None,
)
BARE_BODY = {
    "id": 8,
    "at": "2024-05-01T12:00:01+00:00",
    "actor": "admin",
    "action": "device_type.delete",
    "target_kind": "device_type",
    "target_id": "lpu",
    "before": None,
    "after": None,
    "details": None,
}


def as_before(body: dict[str, Any]) -> str:
    """The bytes the API wrote for `body`: compact JSON, keys in order, UTF-8 as is."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def own(device_type: DeviceType) -> dict[str, Any]:
    body: dict[str, Any] = device_type.model_dump(mode="json")
    return body


@pytest.mark.parametrize("device_type", TYPES, ids=lambda t: t.id)
def test_a_listed_type_is_its_own_json_then_its_totals(device_type: DeviceType) -> None:
    view = DeviceTypeWithInventory.of(CatalogEntry(device_type, INVENTORY))
    assert view.model_dump_json() == as_before({**own(device_type), "inventory": TOTALS})


@pytest.mark.parametrize("device_type", TYPES, ids=lambda t: t.id)
def test_one_type_adds_its_nodes(device_type: DeviceType) -> None:
    view = DeviceTypeDetail.of(CatalogEntry(device_type, INVENTORY))
    expected = {**own(device_type), "inventory": {**TOTALS, "per_node": PER_NODE}}
    assert view.model_dump_json() == as_before(expected)


def test_an_unread_inventory_is_null_and_says_why() -> None:
    entry = CatalogEntry(LPU, None, "cannot reach Kubernetes at https://k8s:6443")
    expected = {
        **own(LPU),
        "inventory": None,
        "inventory_error": "cannot reach Kubernetes at https://k8s:6443",
    }
    assert DeviceTypeWithInventory.of(entry).model_dump_json() == as_before(expected)
    assert DeviceTypeDetail.of(entry).model_dump_json() == as_before(expected)


def test_a_type_without_inventory_and_without_error_has_no_error_key() -> None:
    body = DeviceTypeWithInventory.of(CatalogEntry(LPU, None)).model_dump(mode="json")
    assert body == {**own(LPU), "inventory": None}
    assert "inventory_error" not in body


def test_a_saved_type_is_its_own_json_then_its_warnings() -> None:
    said = {"code": "save.metric_warning", "params": {"metric": "temperature", "warning": "x"}}
    saved = SavedDeviceType.of(SaveOutcome(LPU, ["no series for `temperature`"], [said]))
    # The warnings as messages come after everything that was there before.
    expected = {**own(LPU), "warnings": ["no series for `temperature`"], "warning_messages": [said]}
    assert saved.model_dump_json() == as_before(expected)


@pytest.mark.parametrize("device_type", TYPES, ids=lambda t: t.id)
def test_a_reset_type_is_its_own_json(device_type: DeviceType) -> None:
    assert DeviceTypeView.of(device_type).model_dump_json() == device_type.model_dump_json()


def test_audit_records_are_written_as_before() -> None:
    # Stored rows reach the API as the catalog's records, and are written as the rows were.
    records = audit_page([AUDITED, BARE], 12).items
    page = AuditPage(items=[AuditRecord.of(record) for record in records], total=12, limit=2, offset=4)
    assert page.model_dump_json() == as_before(
        {"items": [AUDITED_BODY, BARE_BODY], "total": 12, "limit": 2, "offset": 4}
    )
