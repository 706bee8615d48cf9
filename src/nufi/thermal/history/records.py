"""The history of thermal transitions as the domain sees it: events, not database rows.

The controller writes events and the service reads them through `ThermalRecords`; only this module
turns them into rows of `nufi.db` and back, so the faces never meet a row (as device types reach them
through `devices/stored.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from nufi.db.audit import AuditRepository
from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import ThermalEventRow
from nufi.db.thermal import ThermalEventRepository
from nufi.thermal.effective import StoredPolicies
from nufi.thermal.policy import ThermalPolicy

_AUDITED_KIND = "thermal_policy"


@dataclass(frozen=True)
class ThermalEvent:
    """One transition of a node (or a device, when `device` is set) between `normal` and `hot`, with
    the reading that made it and the pods whose traffic it changed."""

    at: datetime
    device_type_id: str
    node: str
    device: str | None
    to_state: str
    temperature_celsius: float | None
    # pods_off / pods_on ("namespace/name"), pods_kept ({pod, reason}), the policy, override_of.
    details: dict[str, Any]
    message: str
    # Given by the database when the event is stored; None until then.
    id: int | None = None

    @cached_property
    def policy(self) -> ThermalPolicy | None:
        """The policy the transition was judged by; None for an event stored without a usable one."""
        try:
            return ThermalPolicy.model_validate(self.details.get("policy"))
        except ValidationError:
            return None

    @property
    def condition(self) -> str:
        """Which condition changed: `temperature` (also for events older than the others), `unhealthy`
        or `custom`."""
        return str(self.details.get("condition") or "temperature")


class ThermalRecords:
    """The stored policies (as `thermal.effective` reads them) and the events, each call in a session
    of its own."""

    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions
        self.policies = StoredPolicies(sessions)

    async def add(self, events: Sequence[ThermalEvent]) -> None:
        if events:
            async with transaction(self._sessions) as session:
                ThermalEventRepository(session).add([_row(event) for event in events])

    async def audit(self, actor: str, action: str, device_type_id: str, details: dict[str, Any]) -> None:
        """An audit record of something protection decided on its own (the breaker holding)."""
        async with transaction(self._sessions) as session:
            await AuditRepository(session).record(actor, action, _AUDITED_KIND, device_type_id, after=details)

    async def last_audited(self, actor: str, actions: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Per device type, what `actor`'s newest audit record of one of `actions` says (its `after`)."""
        async with self._sessions() as session:
            rows = await AuditRepository(session).latest_per_target(
                target_kind=_AUDITED_KIND, actor=actor, actions=actions
            )
        return {device_type: dict(row.after or {}) for device_type, row in rows.items()}

    async def events(
        self, *, limit: int = 100, device_type_id: str | None = None, node: str | None = None
    ) -> list[ThermalEvent]:
        """The newest `limit` events matching the filters given, newest first."""
        async with self._sessions() as session:
            rows = await ThermalEventRepository(session).newest(
                limit=limit, device_type_id=device_type_id, node=node
            )
            return [_event(row) for row in rows]


def _row(event: ThermalEvent) -> ThermalEventRow:
    return ThermalEventRow(**event_values(event))


def _event(row: ThermalEventRow) -> ThermalEvent:
    return ThermalEvent(**event_values(row))


def event_values(source: ThermalEvent | ThermalEventRow) -> dict[str, Any]:
    """An event's values by field name, the details copied: the record, its row and its view in the
    API name each field alike."""
    values = {field.name: getattr(source, field.name) for field in fields(ThermalEvent)}
    return values | {"details": dict(source.details)}
