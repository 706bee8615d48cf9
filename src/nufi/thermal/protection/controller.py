"""The thermal controller: a loop that reads temperatures through the monitoring refreshers, keeps
the hysteresis tracks, and, only while this replica holds the Lease, turns serving pods' traffic off
and on, taints nodes, and writes Events, history rows and log lines.

Every replica assesses (so any replica answers the status), one acts. Enforcement fails open: a pod
starts with its traffic on, and when NuFi stops, pods keep the label they have; only pods already off
stay off until a controller runs again (docs/thermal.md says how to turn them back by hand).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from nufi.auth import Principal
from nufi.background.jobs import THERMAL_CONTROL
from nufi.background.periodic import Periodic
from nufi.cluster import ClusterGateway
from nufi.cluster.lease import LeaderElector
from nufi.cluster.traffic import node_taints, record_event, set_node_taint, set_pod_traffic
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import Labels
from nufi.errors import NufiError
from nufi.logging import get_logger
from nufi.messages import Message
from nufi.monitoring.service import MonitoringService
from nufi.prom import PrometheusGateway
from nufi.thermal.history.breaker_events import BreakerAnnouncements
from nufi.thermal.history.records import ThermalRecords
from nufi.thermal.history.transitions import history_event, name_of
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.assessment import Assessment, Decision, TrackKey, Transition, assess
from nufi.thermal.protection.custom_readings import custom_readings
from nufi.thermal.protection.hysteresis import Track
from nufi.thermal.protection.serving import OVERRIDE_ANNOTATION, ServingDeployment, read_serving
from nufi.thermal.protection.status import ThermalStatus
from nufi.thermal.protection.temperatures import Readings, Temperatures, health, temperatures
from nufi.workloads.labels import (
    THERMAL_KEPT_REASON,
    THERMAL_OFF_REASON,
    THERMAL_OFF_SINCE,
    THERMAL_REASON_MESSAGE,
    TRAFFIC,
    TRAFFIC_OFF,
    TRAFFIC_ON,
)

TAINT_KEY = "nufi.io/thermal"
TAINT_VALUE = "hot"
TAINT_EFFECT = "NoSchedule"
COMPONENT = "nufi-thermal"
# Monitoring reads as an administrator would: thermal control must see every pod's name.
SYSTEM = Principal(subject="system:nufi-thermal", username=COMPONENT, roles=frozenset({"nufi-admin"}))

_log = get_logger("nufi.thermal")


@dataclass(frozen=True)
class ControllerSettings:
    interval_seconds: float
    # A snapshot older than this is no reading (several refreshes missed).
    max_snapshot_age_seconds: float


class ThermalController:
    def __init__(
        self,
        *,
        catalog: DeviceCatalog,
        monitoring: MonitoringService,
        cluster: ClusterGateway,
        records: ThermalRecords,
        elector: LeaderElector | None,
        settings: ControllerSettings,
        identity: str,
        clock: Callable[[], float] = time.time,
        prometheus: PrometheusGateway | None = None,
    ) -> None:
        self._catalog = catalog
        self._monitoring = monitoring
        self._cluster = cluster
        self._records = records
        self._elector = elector
        self._settings = settings
        self._identity = identity
        self._clock = clock
        self._tracks: Mapping[TrackKey, Track] = {}
        self._breakers = BreakerAnnouncements(cluster, records, identity)
        # Each type's labels, for reading its policy's own condition.
        self._labels: dict[str, Labels] = {}
        self._prometheus = prometheus
        self._status = ThermalStatus(None, identity, False, None, ())
        self._unreadable: tuple[Message, ...] = ()
        self.job = Periodic(THERMAL_CONTROL, settings.interval_seconds, self._pass)

    @property
    def status(self) -> ThermalStatus:
        return self._status

    @property
    def leader(self) -> bool:
        return self._elector is not None and self._elector.is_leader

    @property
    def jobs(self) -> tuple[Periodic, ...]:
        """The Lease first: the controller reads who holds it."""
        return (self.job,) if self._elector is None else (self._elector.job, self.job)

    def start(self) -> None:
        for job in self.jobs:
            job.start()

    async def close(self, *, release: bool = True) -> None:
        """Stop; `release` hands the Lease over at once (False: as a crash would, after it expires)."""
        await self.job.close()
        if self._elector is not None:
            await self._elector.close(release=release)

    async def _pass(self) -> None:
        await self.run_once()

    async def run_once(self) -> Assessment:
        """One pass: assess, and act when leading. Reading the cluster failing changes nothing."""
        now = self._clock()
        policies = await self._policies()
        serving = await read_serving(self._cluster)
        relevant = _relevant(policies, serving)
        temps: dict[str, Temperatures] = {}
        health: dict[str, Readings] = {}
        custom: dict[str, Readings] = {}
        for device_type in sorted(relevant):
            temps[device_type], health[device_type] = await self._readings(device_type)
            own = policies[device_type].custom
            if own.enabled and own.expression and self._prometheus is not None:
                labels = self._labels[device_type]
                pods = temps[device_type].pod_devices
                custom[device_type] = await custom_readings(self._prometheus, own.expression, labels, pods)
        acting = self.leader
        # The taints are read by the one replica that may change them.
        tainted = await self._tainted() if acting else set()
        result = assess(
            now=now,
            policies=policies,
            temperatures=temps,
            serving=serving,
            tracks=self._tracks,
            tainted=tainted,
            health=health,
            custom=custom,
        )
        self._tracks = result.tracks
        if acting:
            await self._act(result, now)
            await self._breakers.announce(result.types)
        else:
            self._breakers.stop_acting()
        self._status = ThermalStatus(
            updated_at=now,
            identity=self._identity,
            leader=acting,
            holder=None if self._elector is None else self._elector.holder,
            types=result.types,
            problems=tuple(
                Message(
                    "thermal.override_unusable",
                    {"deployment": f"{d.namespace}/{d.name}", "annotation": OVERRIDE_ANNOTATION}
                    | {"reason": d.override_problem},
                )
                for d in serving
                if d.override_problem
            )
            + self._unreadable,
        )
        return result

    async def _policies(self) -> dict[str, ThermalPolicy]:
        """Each enabled type's effective policy (`thermal.effective`); why a stored one is not applied
        goes to the status until the next pass."""
        types = await self._catalog.list(SYSTEM, enabled_only=True)
        self._labels.update((t.id, t.labels) for t in types)
        entries = (await self._records.policies.effective(types)).values()
        self._unreadable = tuple(e.unreadable for e in entries if e.unreadable is not None)
        return {entry.device_type: entry.policy for entry in entries}

    async def _readings(self, device_type: str) -> tuple[Temperatures, Readings]:
        """The type's temperatures and health, from one snapshot."""
        try:
            snapshot = await self._monitoring.snapshot(SYSTEM, device_type)
        except NufiError as exc:
            failed = Temperatures({}, {}, {}, unusable=Message(exc.code, exc.params))
            return failed, failed
        age = self._settings.max_snapshot_age_seconds
        return temperatures(snapshot, max_age_seconds=age), health(snapshot, max_age_seconds=age)

    async def _tainted(self) -> set[str]:
        taints = await node_taints(self._cluster)
        return {node for node, items in taints.items() if any(t.get("key") == TAINT_KEY for t in items)}

    async def _act(self, result: Assessment, now: float) -> None:
        stamp = datetime.fromtimestamp(now, UTC).isoformat().replace("+00:00", "Z")
        changed = [d for d in result.decisions if d.changes]
        for decision in changed:
            await _apply(self._cluster, decision, stamp)
        for node, present in result.taints.items():
            await set_node_taint(
                self._cluster, node, key=TAINT_KEY, value=TAINT_VALUE, effect=TAINT_EFFECT, present=present
            )
        events = []
        for transition in result.transitions:
            pods = [d for d in changed if _affected(d, transition)]
            events.append(history_event(transition, pods, now))
            await _events(self._cluster, self._identity, transition, pods, events[-1].message)
            _log.info(
                "thermal transition",
                device_type=transition.key.device_type,
                node=transition.key.node,
                device=transition.key.device,
                condition=transition.key.condition,
                state="tripped" if transition.hot else "normal",
                temperature_celsius=transition.temperature,
                pods_off=[name_of(d) for d in pods if not d.traffic_on],
                pods_on=[name_of(d) for d in pods if d.traffic_on],
                pods_kept=[name_of(d) for d in pods if d.kept],
            )
        for decision in changed:
            if decision.kept:
                why = decision.reason_text or ""
                await _event(self._cluster, self._identity, decision, "ThermalKept", why, "Warning")
        await self._records.add(events)


def _relevant(policies: Mapping[str, ThermalPolicy], serving: tuple[ServingDeployment, ...]) -> set[str]:
    """The types thermal control reads: an enabled policy, an override enabling it, or pods still off
    (to turn them back on when a policy is disabled)."""
    relevant = {device_type for device_type, policy in policies.items() if policy.enabled}
    for deployment in serving:
        if deployment.device_type not in policies:
            continue
        override = deployment.override
        if (override is not None and override.enabled) or any(not p.traffic_on for p in deployment.pods):
            relevant.add(deployment.device_type)
    return relevant


async def _apply(cluster: ClusterGateway, decision: Decision, stamp: str) -> None:
    pod = decision.pod
    annotations: dict[str, str | None]
    if decision.traffic_on:
        annotations = {THERMAL_OFF_SINCE: None, THERMAL_OFF_REASON: None}
        annotations[THERMAL_KEPT_REASON] = decision.reason_text if decision.kept else None
    else:
        since = stamp if pod.traffic_on or pod.off_since is None else None
        annotations = {THERMAL_OFF_REASON: decision.reason_text, THERMAL_KEPT_REASON: None}
        if since is not None:
            annotations[THERMAL_OFF_SINCE] = since
    # The English reason stays for kubectl readers; the message lets each face word it in its language.
    shown = decision.reason if (decision.kept or not decision.traffic_on) else None
    annotations[THERMAL_REASON_MESSAGE] = None if shown is None else json.dumps(shown.to_data())
    await set_pod_traffic(
        cluster,
        pod.namespace,
        pod.name,
        labels={TRAFFIC: TRAFFIC_ON if decision.traffic_on else TRAFFIC_OFF},
        annotations=annotations,
    )


def _affected(decision: Decision, transition: Transition) -> bool:
    return decision.deployment.device_type == transition.key.device_type and decision.pod.node == (
        transition.key.node
    )


async def _events(
    cluster: ClusterGateway, instance: str, transition: Transition, pods: list[Decision], message: str
) -> None:
    word = {"unhealthy": "Unhealthy", "custom": "Condition"}.get(transition.key.condition, "Thermal")
    reason, kind = (f"{word}Trip", "Warning") if transition.hot else (f"{word}Resume", "Normal")
    event_type: Literal["Normal", "Warning"] = "Warning" if transition.hot else "Normal"
    await _guarded(
        record_event(
            cluster,
            namespace="default",
            kind="Node",
            name=transition.key.node,
            uid=None,
            reason=reason,
            message=message,
            type_=event_type,
            instance=instance,
        )
    )
    for decision in pods:
        await _event(cluster, instance, decision, reason, message, kind)


async def _event(
    cluster: ClusterGateway, instance: str, decision: Decision, reason: str, message: str, kind: str
) -> None:
    pod = decision.pod
    await _guarded(
        record_event(
            cluster,
            namespace=pod.namespace,
            kind="Pod",
            name=pod.name,
            uid=pod.uid,
            reason=reason,
            message=message,
            type_="Warning" if kind == "Warning" else "Normal",
            instance=instance,
        )
    )


async def _guarded(write: Awaitable[None]) -> None:
    # An Event is a record, not the action: failing to write one must not undo or stop the action.
    try:
        await write
    except Exception as exc:
        _log.warning("thermal event not recorded", error=str(exc))
