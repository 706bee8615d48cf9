"""The rule groups NuFi wants written: one per enabled type, from its expressions, its alert
thresholds and its effective thermal policy's trip, read fresh from the database each time so every
replica computes the same groups."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime

from nufi.alerts.rules import RuleGroup, rule_group
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import Principal
from nufi.db import Database
from nufi.db.alerts import AlertThresholdsRepository
from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import JsonObject
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import DeviceType
from nufi.logging import get_logger
from nufi.thermal.effective import PolicyEntry, StoredPolicies

SYSTEM = Principal(subject="system:nufi-alerts", username="nufi-alerts", roles=frozenset({"nufi-admin"}))
_log = get_logger("nufi.alerts")


@dataclass(frozen=True)
class Wanted:
    """Every type of the catalog, and the rule groups of those enabled."""

    types: tuple[DeviceType, ...]
    groups: tuple[RuleGroup, ...]


def thresholds_of(stored: JsonObject | None) -> AlertThresholds:
    """A type's stored thresholds, or the defaults where none (or none readable) are stored."""
    if stored is None:
        return AlertThresholds()
    try:
        return AlertThresholds.model_validate(stored)
    except ValueError as exc:
        _log.warning("stored alert thresholds unreadable; the defaults apply", reason=str(exc))
        return AlertThresholds()


class StoredThresholds:
    """The thresholds table as the domain reads it, each call in a session of its own."""

    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def all(self) -> dict[str, AlertThresholds]:
        async with self._sessions() as session:
            rows = await AlertThresholdsRepository(session).all()
        return {device_type: thresholds_of(dict(row.thresholds)) for device_type, row in rows.items()}

    async def remove_except(self, kept: Collection[str], *, written_before: datetime) -> int:
        """Delete the thresholds of types not in `kept` last written before `written_before`
        (`AlertThresholdsRepository.remove_except`); how many were deleted."""
        async with transaction(self._sessions) as session:
            return await AlertThresholdsRepository(session).remove_except(kept, written_before=written_before)


class DesiredRules:
    def __init__(self, catalog: DeviceCatalog, database: Database) -> None:
        self._catalog = catalog
        self.thresholds = StoredThresholds(database.sessions)
        self._policies = StoredPolicies(database.sessions)

    async def wanted(self) -> Wanted:
        types = await self._catalog.list(SYSTEM)
        thresholds = await self.thresholds.all()
        policies = await self._policies.effective(types)
        return Wanted(tuple(types), groups_of(types, thresholds, policies))


def groups_of(
    types: tuple[DeviceType, ...] | list[DeviceType],
    thresholds: Mapping[str, AlertThresholds],
    policies: Mapping[str, PolicyEntry],
) -> tuple[RuleGroup, ...]:
    """The rule group of each enabled type: its thresholds (the defaults where none are stored) and
    its effective policy's trip (`thermal.effective`)."""
    return tuple(
        rule_group(t, thresholds.get(t.id, AlertThresholds()), policies[t.id].policy.trip_celsius)
        for t in types
        if t.enabled
    )
