"""The audit log: who did what to which thing, when, with the state before and after."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.audit_changes import leaf_changes
from nufi.db.tables import AuditRecordRow, JsonObject
from nufi.db.types import utc_now

MAX_PAGE = 1000
# Every action a writer records. A record of any other is refused, so a new action cannot reach the
# audit log before it is listed here, where the dashboard's words for each are checked (tests/unit/ui).
ACTIONS = (
    "device_type.create",
    "device_type.update",
    "device_type.delete",
    "device_type.reset",
    "thermal_policy.update",
    "alert_thresholds.update",
    "protection.breaker_held",
    "protection.breaker_released",
    "project.create",
    "project.delete",
    "project.member.add",
    "project.member.remove",
    "project.quota.set",
    "project.quota.follow_type",
    "deployment.create",
    "deployment.scale",
    "deployment.delete",
    "deployment.thermal_override",
    "lab.create",
    "lab.delete",
    "lab.start",
    "lab.stop",
)
_Statement = TypeVar("_Statement", bound=Select[Any])


class AuditRepository:
    """Audit records within the caller's session, so a change and its record commit together."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def record(
        self,
        actor: str,
        action: str,
        target_kind: str,
        target_id: str,
        before: JsonObject | None = None,
        after: JsonObject | None = None,
        details: JsonObject | None = None,
    ) -> AuditRecordRow | None:
        """Add a record stamped with the current time; it is stored when the caller commits. A change
        whose states differ in no leaf but bookkeeping (a save of what was already there) is not one:
        nothing is recorded and the answer is None."""
        check_action(action)
        if before is not None and after is not None and not leaf_changes(before, after):
            return None
        row = AuditRecordRow(
            at=utc_now(),
            actor=actor,
            action=action,
            target_kind=target_kind,
            target_id=target_id,
            before=before,
            after=after,
            details=details,
        )
        self._session.add(row)
        # Flushing now surfaces a refused record here, next to the change it describes, and fills in
        # the id.
        await self._session.flush()
        return row

    async def list(
        self,
        limit: int = 100,
        offset: int = 0,
        *,
        target_kind: str | None = None,
        target_id: str | None = None,
        actor: str | None = None,
    ) -> Sequence[AuditRecordRow]:
        """Records matching every filter given, newest first."""
        _check_page(limit, offset)
        statement = (
            self._filtered(select(AuditRecordRow), target_kind, target_id, actor)
            .order_by(AuditRecordRow.at.desc(), AuditRecordRow.id.desc())
            .limit(limit)
            .offset(offset)
        )
        return (await self._session.scalars(statement)).all()

    async def latest_per_target(
        self, *, target_kind: str, actor: str, actions: Collection[str]
    ) -> dict[str, AuditRecordRow]:
        """Per target of `target_kind`, the newest record by `actor` of one of `actions`."""
        newest = (
            self._filtered(select(func.max(AuditRecordRow.id)), target_kind, None, actor)
            .where(AuditRecordRow.action.in_(list(actions)))
            .group_by(AuditRecordRow.target_id)
        )
        rows = await self._session.scalars(select(AuditRecordRow).where(AuditRecordRow.id.in_(newest)))
        return {row.target_id: row for row in rows}

    async def count(
        self, *, target_kind: str | None = None, target_id: str | None = None, actor: str | None = None
    ) -> int:
        """How many records match every filter given (for paging through `list`)."""
        statement = self._filtered(
            select(func.count()).select_from(AuditRecordRow), target_kind, target_id, actor
        )
        return int((await self._session.execute(statement)).scalar_one())

    @staticmethod
    def _filtered(
        statement: _Statement, target_kind: str | None, target_id: str | None, actor: str | None
    ) -> _Statement:
        if target_kind is not None:
            statement = statement.where(AuditRecordRow.target_kind == target_kind)
        if target_id is not None:
            statement = statement.where(AuditRecordRow.target_id == target_id)
        if actor is not None:
            statement = statement.where(AuditRecordRow.actor == actor)
        return statement


def check_action(action: str) -> None:
    """ValueError for an action not in `ACTIONS`."""
    if action not in ACTIONS:
        raise ValueError(f"{action!r} is not an audited action; list it in nufi.db.audit.ACTIONS")


def _check_page(limit: int, offset: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE}, got {limit}")
    if offset < 0:
        raise ValueError(f"offset must not be negative, got {offset}")
