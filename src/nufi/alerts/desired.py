"""The rule groups NuFi wants written: one per enabled type, from its expressions, its alert
thresholds and its thermal policy's trip, read fresh from the database each time so every replica
computes the same groups."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nufi.alerts.rules import RuleGroup, rule_group
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import Principal
from nufi.db import Database
from nufi.db.alerts import AlertThresholdsStore
from nufi.db.tables import JsonObject
from nufi.db.thermal import ThermalStore
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import DeviceType
from nufi.logging import get_logger
from nufi.thermal.policy import ThermalPolicy, default_policy

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


def trip_of(device_type: DeviceType, stored_policy: JsonObject | None) -> float:
    """The trip temperature of the type's thermal policy: the admin's, else the type's default."""
    if stored_policy is not None:
        try:
            return ThermalPolicy.model_validate(stored_policy).trip_celsius
        except ValueError:
            pass
    return default_policy(device_type.thermal).trip_celsius


class DesiredRules:
    def __init__(self, catalog: DeviceCatalog, database: Database) -> None:
        self._catalog = catalog
        self.thresholds = AlertThresholdsStore(database.sessions)
        self._policies = ThermalStore(database.sessions)

    async def wanted(self) -> Wanted:
        types = await self._catalog.list(SYSTEM)
        stored = await self.thresholds.all()
        policies = await self._policies.policies()
        return Wanted(tuple(types), groups_of(types, stored, policies))


def groups_of(
    types: tuple[DeviceType, ...] | list[DeviceType],
    stored: Mapping[str, JsonObject],
    policies: Mapping[str, JsonObject],
) -> tuple[RuleGroup, ...]:
    return tuple(
        rule_group(t, thresholds_of(stored.get(t.id)), trip_of(t, policies.get(t.id)))
        for t in types
        if t.enabled
    )
