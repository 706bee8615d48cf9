"""The audit log as the faces read it: records, not database rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nufi.db import AuditRecordRow


@dataclass(frozen=True)
class AuditRecord:
    """Who did what to which thing, when, with the state before and after."""

    id: int
    at: datetime
    actor: str
    action: str
    target_kind: str
    target_id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    details: dict[str, Any] | None


@dataclass(frozen=True)
class AuditPage:
    items: Sequence[AuditRecord]
    # Every record matching the filters, not only this page's.
    total: int


def audit_page(rows: Sequence[AuditRecordRow], total: int) -> AuditPage:
    return AuditPage(tuple(_record(row) for row in rows), total)


def _record(row: AuditRecordRow) -> AuditRecord:
    return AuditRecord(
        id=row.id,
        at=row.at,
        actor=row.actor,
        action=row.action,
        target_kind=row.target_kind,
        target_id=row.target_id,
        before=None if row.before is None else dict(row.before),
        after=None if row.after is None else dict(row.after),
        details=None if row.details is None else dict(row.details),
    )
