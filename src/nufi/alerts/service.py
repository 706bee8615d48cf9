"""Alerts for the faces: the alerts firing now (everyone, masked like monitoring), and each type's
thresholds and rules (admins), whose changes are audited and written out at once.

Where the rules are written and why a pass failed name servers, paths and Prometheus' own errors, and
Alertmanager shows every alert with its labels unmasked: admins get both, everyone else a status
worded by code and no Alertmanager link."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from nufi.alerts.capacity import CapacitySample, NodesNow, capacity_samples
from nufi.alerts.desired import thresholds_of
from nufi.alerts.firing import FiringAlert, masked, read_alerts
from nufi.alerts.rules import RuleGroup, rule_group
from nufi.alerts.sync import RulesStatus, RuleSync
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import Principal
from nufi.auth.policy import require_admin, require_user
from nufi.db import Database
from nufi.db.alerts import AlertThresholdsRepository
from nufi.db.audit import AuditRepository
from nufi.db.types import utc_now
from nufi.devices.catalog import DeviceCatalog
from nufi.messages import Message
from nufi.monitoring.snapshots.masking import NamespaceVisibility, hidden_in
from nufi.prom import PrometheusGateway
from nufi.thermal.effective import StoredPolicies

TARGET_KIND = "alert_thresholds"


@dataclass(frozen=True)
class ThresholdsEntry:
    device_type: str
    thresholds: AlertThresholds
    # The hot rule's temperature in force: the thresholds' own, else the thermal policy's trip.
    hot_celsius: float
    # `default` or `admin` (stored).
    source: str
    # The rules written for the type; None while it is disabled.
    rules: RuleGroup | None
    revision: int | None = None
    updated_by: str | None = None
    updated_at: datetime | None = None
    # Whether the type maps a health expression: without one the unhealthy rule is never written.
    has_health: bool = True


@dataclass(frozen=True)
class AlertsView:
    alerts: tuple[FiringAlert, ...]
    # Display name of each type named by an alert.
    type_names: dict[str, str]
    rules: RulesStatus
    alertmanager_url: str | None


class AlertService:
    def __init__(
        self,
        *,
        catalog: DeviceCatalog,
        database: Database,
        prometheus: PrometheusGateway,
        visibility: NamespaceVisibility,
        sync: RuleSync,
        nodes: NodesNow = lambda: None,
        alertmanager_url: str | None = None,
    ) -> None:
        self._catalog = catalog
        self._database = database
        self._prometheus = prometheus
        self._visibility = visibility
        self.sync = sync
        self._alertmanager_url = alertmanager_url
        self._nodes = nodes

    def capacity(self) -> list[CapacitySample]:
        """Each node's devices of each enabled type, from the nodes this replica keeps (none while
        its cluster cache is not serving: a scrape must not wait on Kubernetes)."""
        nodes = self._nodes()
        return [] if nodes is None else capacity_samples(self.sync.resources, nodes)

    async def alerts(self, principal: Principal | None, *, device_type: str | None = None) -> AlertsView:
        """Pending and firing alerts of NuFi's rules, optionally of one type; pods of projects the
        reader is not a member of are shown as "another project"."""
        require_user(principal)
        found = read_alerts(await self._prometheus.read("/api/v1/alerts"))
        if device_type is not None:
            found = [a for a in found if a.device_type == device_type]
        hidden = await self._visibility.hidden_namespaces(principal)
        shown = masked(found, hidden_in(hidden))
        names = {t.id: t.name for t in await self._catalog.list(principal)}
        return AlertsView(
            tuple(shown),
            {a.device_type: names.get(a.device_type, a.device_type) for a in shown},
            *self._rules_for(principal),
        )

    def rules_only(self, principal: Principal | None) -> AlertsView:
        """Where the rules are written and how the last pass went, with no alerts: what a face still
        shows when Prometheus cannot be read."""
        require_user(principal)
        return AlertsView((), {}, *self._rules_for(principal))

    def _rules_for(self, principal: Principal | None) -> tuple[RulesStatus, str | None]:
        """The rules' status and Alertmanager's URL as `principal` may see them: as they are for an
        admin; for anyone else the status without where the rules are or why they failed (worded by
        a neutral code), and no Alertmanager, whose API shows other projects' pods unmasked."""
        status = self.sync.status
        if principal is not None and principal.is_admin:
            return status, self._alertmanager_url
        problem = None
        if status.problem is not None:
            neutral = "alerts.status.failing" if status.configured else "alerts.status.not_configured"
            problem = Message(neutral)
        return replace(status, location="", problem=problem), None

    async def thresholds(self, principal: Principal | None, device_type_id: str) -> ThresholdsEntry:
        admin = require_admin(principal)
        device_type = await self._catalog.get(admin, device_type_id)
        async with self._database.session() as session:
            row = await AlertThresholdsRepository(session).get(device_type.id)
        thresholds = thresholds_of(None if row is None else dict(row.thresholds))
        trip = (await StoredPolicies(self._database.sessions).of(device_type)).policy.trip_celsius
        group = rule_group(device_type, thresholds, trip) if device_type.enabled else None
        hot = trip if thresholds.hot.celsius is None else thresholds.hot.celsius
        has_health = "health" in device_type.metrics.queries()
        if row is None:
            return ThresholdsEntry(device_type.id, thresholds, hot, "default", group, has_health=has_health)
        return ThresholdsEntry(
            device_type.id,
            thresholds,
            hot,
            "admin",
            group,
            row.revision,
            row.updated_by,
            row.updated_at,
            has_health,
        )

    async def put_thresholds(
        self, principal: Principal | None, device_type_id: str, thresholds: AlertThresholds
    ) -> ThresholdsEntry:
        """Store `thresholds` with an audit record, then write the type's rules out at once. The same
        thresholds again change nothing and record nothing."""
        admin = require_admin(principal)
        before = await self.thresholds(admin, device_type_id)
        if before.source == "admin" and before.thresholds == thresholds:
            return before
        async with self._database.transaction() as session:
            await AlertThresholdsRepository(session).put(
                before.device_type, thresholds.model_dump(), actor=admin.username, now=utc_now()
            )
            await AuditRepository(session).record(
                admin.username,
                f"{TARGET_KIND}.update",
                TARGET_KIND,
                before.device_type,
                before=before.thresholds.model_dump() | {"source": before.source},
                after=thresholds.model_dump(),
            )
        await self.sync.sync_now()
        return await self.thresholds(admin, device_type_id)
