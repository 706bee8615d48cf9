"""Response body of the audit log, built from the audit records the catalog reads."""

from __future__ import annotations

from dataclasses import asdict

from pydantic import BaseModel
from pydantic.dataclasses import dataclass

from nufi.api.schemas.values import Timestamp
from nufi.devices import audit


@dataclass(frozen=True)
class AuditRecord(audit.AuditRecord):
    """A record of the audit log (`devices.audit.AuditRecord`), its moment in ISO 8601 with its offset."""

    at: Timestamp

    @classmethod
    def of(cls, record: audit.AuditRecord) -> AuditRecord:
        return cls(**asdict(record))


class AuditPage(BaseModel):
    items: list[AuditRecord]
    total: int
    limit: int
    offset: int
