"""Response body of the audit log, built from the stored audit records."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from nufi.api.schemas.values import Timestamp


class AuditRecord(BaseModel):
    model_config = ConfigDict(from_attributes=True, frozen=True)

    id: int
    at: Timestamp
    actor: str
    action: str
    target_kind: str
    target_id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    details: dict[str, Any] | None


class AuditPage(BaseModel):
    items: list[AuditRecord]
    total: int
    limit: int
    offset: int
