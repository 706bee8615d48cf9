"""Each device type's effective protection policy: the one place that decides it from the stored row,
with one failure policy, for the controller, the alert rules, the API and the dashboard alike.

A stored policy that no longer validates (saved before a rule was tightened) is never applied and never
dropped in silence: the type's default applies, and the entry says why (`unreadable`), which the
controller's status, the API and the page show and the log records, until an admin saves a policy again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from nufi.db.session import SessionFactory
from nufi.db.tables import ThermalPolicyRow
from nufi.db.thermal import ThermalPolicyRepository
from nufi.devices.spec import DeviceType
from nufi.logging import get_logger
from nufi.messages import Message
from nufi.messages.validation import validation_message
from nufi.thermal.policy import ThermalPolicy, default_policy
from nufi.thermal.protection.conditions import unmet_conditions

UNREADABLE = "thermal_policy.unreadable"
_log = get_logger("nufi.thermal")


@dataclass(frozen=True)
class PolicyEntry:
    device_type: str
    policy: ThermalPolicy
    # `default` (from the type's thermal defaults) or `admin` (stored).
    source: str
    revision: int | None = None
    updated_by: str | None = None
    updated_at: datetime | None = None
    # Why the stored policy is not applied (it no longer validates); the default applies meanwhile.
    unreadable: Message | None = None
    # Conditions switched on that can never trip: the type maps nothing for them to read.
    warnings: tuple[Message, ...] = ()


def effective_policy(device_type: DeviceType, row: ThermalPolicyRow | None) -> PolicyEntry:
    """The policy protection applies to `device_type`, given its stored row (None: none stored)."""
    default = PolicyEntry(device_type.id, default_policy(device_type.thermal), "default")
    if row is None:
        return default
    try:
        policy = ThermalPolicy.model_validate(row.policy)
    except ValidationError as exc:
        reason = validation_message(exc.errors()[0])
        _log.warning("stored thermal policy unreadable; the default applies", device_type=device_type.id)
        return PolicyEntry(
            default.device_type,
            default.policy,
            default.source,
            unreadable=Message(UNREADABLE, {"device_type": device_type.id, "reason": reason}),
        )
    return admin_entry(device_type, policy, row)


def admin_entry(device_type: DeviceType, policy: ThermalPolicy, row: ThermalPolicyRow) -> PolicyEntry:
    """The entry of an admin's `policy` for `device_type`, stored as `row`."""
    warnings = tuple(unmet_conditions(device_type, policy).values())
    return PolicyEntry(
        device_type.id, policy, "admin", row.revision, row.updated_by, row.updated_at, warnings=warnings
    )


class StoredPolicies:
    """The policy table as the domain reads it: effective policies, each read in a session of its own."""

    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def effective(self, device_types: Iterable[DeviceType]) -> dict[str, PolicyEntry]:
        """Each of `device_types`' effective policy, by id, in the order given."""
        async with self._sessions() as session:
            rows = await ThermalPolicyRepository(session).all()
        return {t.id: effective_policy(t, rows.get(t.id)) for t in device_types}

    async def of(self, device_type: DeviceType) -> PolicyEntry:
        return (await self.effective([device_type]))[device_type.id]
