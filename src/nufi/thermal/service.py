"""Thermal control for the faces: policies (admin), the per-deployment override (project members),
the live status, the history, and a dry run of a proposed policy over Prometheus history."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from nufi.auth import Principal
from nufi.auth.policy import require_admin, require_user
from nufi.cluster import ClusterGateway
from nufi.cluster.deployments import annotate_deployment, get_deployment
from nufi.db import Database
from nufi.db.audit import AuditRepository
from nufi.db.thermal import ThermalPolicyRepository
from nufi.db.types import utc_now
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import DeviceType, LabelsDraft, MetricsDraft
from nufi.errors import NotFound, ValidationFailed
from nufi.messages import Message, MessageModel
from nufi.monitoring.service import MonitoringService
from nufi.thermal.effective import PolicyEntry, StoredPolicies, admin_entry
from nufi.thermal.history.records import ThermalEvent, ThermalRecords
from nufi.thermal.policy import PolicyOverride, ThermalPolicy
from nufi.thermal.protection.controller import SYSTEM, ThermalController
from nufi.thermal.protection.dry_run import CUSTOM_EXPRESSION_FIELD, DryRun, dry_run
from nufi.thermal.protection.serving import OVERRIDE_ANNOTATION
from nufi.thermal.protection.status import NodeStatus, PodTraffic, ThermalStatus, node_marks
from nufi.workloads.intents import acting
from nufi.workloads.labels import DEVICE_TYPE, MANAGED_BY, MANAGED_BY_NUFI, WORKLOAD_KIND
from nufi.workloads.projects.service import ProjectService

HIDDEN = "another project"


@dataclass(frozen=True)
class OverrideEntry:
    device_type: str
    override: PolicyOverride | None
    # The type's policy with the override applied: what thermal control uses for the deployment.
    effective: ThermalPolicy
    # Why the override is not honoured (the type's policy applies instead); None when it is.
    not_honoured: Message | None = None


class ThermalService:
    def __init__(
        self,
        *,
        catalog: DeviceCatalog,
        monitoring: MonitoringService,
        cluster: ClusterGateway,
        database: Database,
        projects: ProjectService,
        controller: ThermalController | None,
    ) -> None:
        self._catalog = catalog
        self._monitoring = monitoring
        self._cluster = cluster
        self._database = database
        self._records = ThermalRecords(database.sessions)
        self._stored = StoredPolicies(database.sessions)
        self._projects = projects
        self._controller = controller
        self._policy_listeners: list[Callable[[str], None]] = []

    def on_policy_change(self, listener: Callable[[str], None]) -> None:
        """Call `listener(device_type_id)` after each stored policy change."""
        self._policy_listeners.append(listener)

    @property
    def records(self) -> ThermalRecords:
        return self._records

    async def policies(self, principal: Principal | None) -> list[PolicyEntry]:
        """Each type's effective policy (`thermal.effective`), in the catalog's order."""
        require_user(principal)
        return list((await self._stored.effective(await self._catalog.list(principal))).values())

    async def policy(self, principal: Principal | None, device_type_id: str) -> PolicyEntry:
        for entry in await self.policies(principal):
            if entry.device_type == device_type_id:
                return entry
        raise NotFound(code="thermal.device_type_not_found", params={"device_type": device_type_id})

    async def put_policy(
        self, principal: Principal | None, device_type_id: str, policy: ThermalPolicy
    ) -> PolicyEntry:
        admin = require_admin(principal)
        before = await self.policy(admin, device_type_id)
        device_type = await self._catalog.get(admin, device_type_id)
        if policy.custom.enabled and policy.custom.expression:
            await self._check_custom(admin, device_type, policy.custom.expression)
        async with self._database.transaction() as session:
            row = await ThermalPolicyRepository(session).put(
                device_type_id, policy.model_dump(), actor=admin.username, now=utc_now()
            )
            await AuditRepository(session).record(
                admin.username,
                "thermal_policy.update",
                "thermal_policy",
                device_type_id,
                before=before.policy.model_dump() | {"source": before.source},
                after=policy.model_dump(),
            )
        for listener in self._policy_listeners:
            listener(device_type_id)
        return admin_entry(device_type, policy, row)

    async def _check_custom(self, admin: Principal, device_type: DeviceType, expression: str) -> None:
        """The custom condition's expression, checked live as the wizard checks a type's: it runs,
        within the admin bounds, and gives series with the type's node and device labels."""
        labels = LabelsDraft(node=device_type.labels.node, device=device_type.labels.device)
        checked = await self._catalog.check_metrics(
            admin,
            labels,
            MetricsDraft(utilization=expression),
            fetcher=device_type.fetcher,
            fields={"utilization": CUSTOM_EXPRESSION_FIELD},
        )
        result = checked.results["utilization"]
        said = result.error_message
        if said is None and result.series == 0:
            said = MessageModel.of(Message("metric_check.no_series", {"query": expression}))
        if said is not None:
            raise ValidationFailed(
                code="thermal_policy.custom_check_failed",
                params={"problem": Message(said.code, said.params)},
                field=CUSTOM_EXPRESSION_FIELD,
            )

    async def override(self, principal: Principal | None, project: str, deployment: str) -> OverrideEntry:
        """A deployment's override (None when it has none) and the policy that applies to it."""
        await self._projects.require_access(principal, project)
        found = await self._deployment(project, deployment)
        text = ((found.get("metadata") or {}).get("annotations") or {}).get(OVERRIDE_ANNOTATION)
        override = None
        if text:
            try:
                override = PolicyOverride.model_validate(json.loads(text))
            except ValueError:
                override = None  # an unusable annotation is ignored by the controller too
        return await self._entry(found, override)

    async def set_override(
        self, principal: Principal | None, project: str, deployment: str, override: PolicyOverride | None
    ) -> OverrideEntry:
        """Set (or with None remove) a deployment's override; refused when it makes the type's
        policy invalid (resume not below trip)."""
        await self._projects.require_access(principal, project)
        found = await self._deployment(project, deployment)
        entry = await self._entry(found, override)
        if override is not None and entry.not_honoured is not None:
            # Refused, naming the field and the bound: entry.effective is the type's own policy here.
            override.applied_to(entry.effective)
        text = None if override is None else json.dumps(override.model_dump(exclude_none=True))
        old = ((found.get("metadata") or {}).get("annotations") or {}).get(OVERRIDE_ANNOTATION)
        # A member's change, audited like an admin's (an intent first: docs/workloads.md).
        async with self._projects.recorder.change(
            acting(principal),
            "deployment.thermal_override",
            "deployment",
            f"{project}/{deployment}",
            before={"value": old},
            after={"value": text},
            details={"annotation": OVERRIDE_ANNOTATION},
        ) as change:
            change.touched = True
            await annotate_deployment(self._cluster, project, deployment, {OVERRIDE_ANNOTATION: text})
        return entry

    async def _deployment(self, project: str, name: str) -> dict[str, Any]:
        found = await get_deployment(self._cluster, project, name)
        if found is None or not _serving(found):
            raise NotFound(code="thermal.deployment_not_found", params={"name": name, "project": project})
        return found

    async def _entry(self, found: dict[str, Any], override: PolicyOverride | None) -> OverrideEntry:
        device_type = ((found.get("metadata") or {}).get("labels") or {}).get(DEVICE_TYPE, "")
        base = (await self.policy(SYSTEM, device_type)).policy
        refused = None if override is None else override.refusal(base)
        if override is None or refused is not None:
            why = None if refused is None else Message(refused.code, refused.params)
            return OverrideEntry(device_type, override, base, why)
        return OverrideEntry(device_type, override, override.applied_to(base))

    async def status(self, principal: Principal | None) -> ThermalStatus:
        require_user(principal)
        status = (
            self._controller.status
            if self._controller is not None
            else ThermalStatus(None, "", False, None, ())
        )
        if principal is not None and principal.is_admin:
            return status
        hidden = await self._projects.hidden_namespaces(principal)
        return replace(
            status,
            types=tuple(replace(t, nodes=tuple(_masked(n, hidden) for n in t.nodes)) for t in status.types),
            problems=tuple(
                p for p in status.problems if str(p.params.get("deployment")).split("/", 1)[0] not in hidden
            ),
        )

    def marked_nodes(self, device_type: str) -> dict[str, str]:
        """`node_marks` of the controller's last pass: no query, so every open page may ask."""
        return node_marks(self._controller.status if self._controller is not None else None, device_type)

    async def events(
        self,
        principal: Principal | None,
        *,
        limit: int = 100,
        device_type: str | None = None,
        node: str | None = None,
    ) -> list[ThermalEvent]:
        require_user(principal)
        assert principal is not None
        events = await self._records.events(limit=limit, device_type_id=device_type, node=node)
        if principal.is_admin:
            return events
        # Only the caller's own projects by name: an event outlives the project it names, so anything
        # else (another project, or one since deleted) is hidden.
        own = frozenset(p.name for p in await self._projects.visible_projects(principal))
        return [_masked_event(event, own) for event in events]

    async def dry_run(
        self,
        principal: Principal | None,
        device_type_id: str,
        policy: ThermalPolicy,
        *,
        start: str | None = None,
        end: str | None = None,
    ) -> DryRun:
        """What `policy` would have done over Prometheus history (default: the last 24 h), each of its
        conditions through the controller's hysteresis and breaker (`thermal.dry_run`)."""
        admin = require_admin(principal)
        device_type = await self._catalog.get(admin, device_type_id)

        async def bounds(expression: str, field: str) -> None:
            await self._catalog.check_query_bounds(
                admin, MetricsDraft(utilization=expression), fields={"utilization": field}
            )

        return await dry_run(
            self._monitoring, admin, device_type, policy, start=start, end=end, bounds=bounds
        )


def _serving(found: dict[str, Any]) -> bool:
    labels = (found.get("metadata") or {}).get("labels") or {}
    return labels.get(MANAGED_BY) == MANAGED_BY_NUFI and labels.get(WORKLOAD_KIND) == "deployment"


def _masked_event(event: ThermalEvent, own: frozenset[str]) -> ThermalEvent:
    """A copy of `event` naming pods and deployments of `own` projects only."""

    def shown(qualified: Any) -> bool:
        return isinstance(qualified, str) and qualified.split("/", 1)[0] in own

    details = dict(event.details)
    for key in ("pods_off", "pods_on"):
        details[key] = [pod if shown(pod) else HIDDEN for pod in details.get(key) or []]
    details["pods_kept"] = [
        kept if shown(kept.get("pod")) else {"pod": HIDDEN, "reason": None, "reason_message": None}
        for kept in details.get("pods_kept") or []
    ]
    message = event.message
    override_of = details.get("override_of")
    if override_of is not None and not shown(override_of):
        details["override_of"] = HIDDEN
        message = message.replace(str(override_of), HIDDEN)
    return replace(event, details=details, message=message)


def _masked(node: NodeStatus, hidden: frozenset[str]) -> NodeStatus:
    def pod(p: PodTraffic) -> PodTraffic:
        if p.namespace not in hidden:
            return p
        return replace(p, namespace=HIDDEN, name=HIDDEN, deployment=HIDDEN, reason=None)

    return replace(
        node,
        pods=tuple(pod(p) for p in node.pods),
        deployments=tuple(HIDDEN if d.split("/", 1)[0] in hidden else d for d in node.deployments),
    )
