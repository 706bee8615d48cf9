"""The audit log as the faces read it: records, not database rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from nufi.db import AuditRecordRow
from nufi.db.audit import ACTIONS
from nufi.db.audit_changes import ABSENT, Absent, LeafChange, leaf_changes
from nufi.db.tables import Record

__all__ = [
    "ABSENT",
    "ACTIONS",
    "Absent",
    "AuditPage",
    "AuditRecord",
    "LeafChange",
    "audit_page",
    "leaf_changes",
]


@dataclass(frozen=True)
class AuditRecord(Record):
    """Who did what to which thing, when, with the state before and after: a record of the audit log
    as the faces read it, not its database row."""

    def changes(self) -> list[LeafChange]:
        """What the record changed, leaf by leaf (everything it made or removed, for a creation or a
        removal), without the writers' bookkeeping."""
        return leaf_changes(self.before, self.after)


@dataclass(frozen=True)
class AuditPage:
    items: Sequence[AuditRecord]
    # Every record matching the filters, not only this page's.
    total: int


_STATES = ("before", "after", "details")


def audit_page(rows: Sequence[AuditRecordRow], total: int) -> AuditPage:
    return AuditPage(tuple(_record(row) for row in rows), total)


def _record(row: AuditRecordRow) -> AuditRecord:
    values = {field.name: getattr(row, field.name) for field in fields(AuditRecord)}
    # The states are copied so that no reader holds the row's own JSON.
    return AuditRecord(**values | {name: dict(values[name]) for name in _STATES if values[name] is not None})
