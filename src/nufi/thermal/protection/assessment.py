"""One pass of thermal control, without I/O: the temperatures of each device type, the policies and the
serving pods go in; the next hysteresis tracks, what each pod's traffic should be, the transitions and
the taints come out.

A track follows one node (or one device, with scope `device`) under one policy's thresholds: the
type's own policy, and any deployment override that changes them. A track seen for the first time is
rebuilt from what the cluster shows: a node whose serving pods of the type have their traffic off, or
that carries the thermal taint, starts hot (since the pods' annotation), so a restart neither forgets a
hot node nor unblocks it before it has cooled for the resume hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass

from nufi.errors import ValidationFailed
from nufi.messages import Message
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.breaker import BreakerStatus, hold
from nufi.thermal.protection.conditions import (
    Condition,
    Thresholds,
    conditions_of,
    custom_limits,
    limits_key,
    limits_of,
    thresholds,
    unhealthy_limits,
)
from nufi.thermal.protection.hysteresis import Limits, Track, start, step, temperature_limits
from nufi.thermal.protection.plan import DeploymentView, PodDecision, PodView, decide
from nufi.thermal.protection.reasons import held_back, why
from nufi.thermal.protection.serving import ServingDeployment, ServingPod
from nufi.thermal.protection.status import DeviceTypeStatus, NodeStatus, PodTraffic
from nufi.thermal.protection.temperatures import Readings, Temperatures


@dataclass(frozen=True)
class TrackKey:
    device_type: str
    node: str
    device: str | None
    thresholds: Thresholds
    condition: Condition = "temperature"


@dataclass(frozen=True)
class Transition:
    key: TrackKey
    hot: bool
    temperature: float | None
    policy: ThermalPolicy
    # The deployment whose override made this track ("namespace/name"), None for the type's policy.
    override_of: str | None = None


@dataclass(frozen=True)
class Decision:
    deployment: ServingDeployment
    pod: ServingPod
    traffic_on: bool
    reason: Message | None
    kept: bool

    @property
    def reason_text(self) -> str | None:
        """The reason in English: what the pod's annotations and the Kubernetes Events carry."""
        return None if self.reason is None else self.reason.text("en")

    @property
    def changes(self) -> bool:
        kept_reason = self.reason_text if self.kept else None
        return self.traffic_on != self.pod.traffic_on or kept_reason != self.pod.kept_reason


@dataclass(frozen=True)
class Assessment:
    tracks: Mapping[TrackKey, Track]
    decisions: tuple[Decision, ...]
    transitions: tuple[Transition, ...]
    # Nodes whose thermal taint should be added (True) or removed (False).
    taints: Mapping[str, bool]
    types: tuple[DeviceTypeStatus, ...]


def effective(deployment: ServingDeployment, policy: ThermalPolicy) -> ThermalPolicy:
    if deployment.override is None:
        return policy
    try:
        return deployment.override.applied_to(policy)
    except (ValueError, ValidationFailed):
        # Not honoured (invalid with the policy, or beyond its bounds): the type's policy applies.
        return policy


def assess(
    *,
    now: float,
    policies: Mapping[str, ThermalPolicy],
    temperatures: Mapping[str, Temperatures],
    serving: tuple[ServingDeployment, ...],
    tracks: Mapping[TrackKey, Track],
    tainted: Set[str],
    health: Mapping[str, Readings] | None = None,
    custom: Mapping[str, Readings] | None = None,
) -> Assessment:
    """`health` holds each type's health readings, for the types whose policy protects from unhealthy
    devices (`policy.unhealthy.enabled`); `custom` the readings of each type's own condition
    (`policy.custom`)."""
    run = _Pass(now, tracks, tainted)
    decisions: list[Decision] = []
    for device_type, temps in temperatures.items():
        policy = policies[device_type]
        deployments = [d for d in serving if d.device_type == device_type]
        run.follow(device_type, policy, temps, deployments, None)
        for deployment in deployments:
            own = effective(deployment, policy)
            if thresholds(own) != thresholds(policy):
                run.follow(device_type, own, temps, [deployment], f"{deployment.namespace}/{deployment.name}")
        healthy = (health or {}).get(device_type)
        if policy.unhealthy.enabled and healthy is not None:
            run.follow(device_type, policy, healthy, deployments, None, unhealthy_limits(policy), "unhealthy")
        mapped = (custom or {}).get(device_type)
        if "custom" in conditions_of(policy) and mapped is not None:
            run.follow(device_type, policy, mapped, deployments, None, custom_limits(policy), "custom")
        run.hold(device_type, policy, temps, deployments)
        for deployment in deployments:
            decisions.extend(run.decide(device_type, effective(deployment, policy), temps, deployment))
    types = tuple(
        run.status(device_type, policies[device_type], temps, serving, decisions)
        for device_type, temps in sorted(temperatures.items())
    )
    return Assessment(
        tracks=run.next,
        decisions=tuple(decisions),
        transitions=tuple(run.transitions),
        taints=run.taints(policies, temperatures),
        types=types,
    )


class _Pass:
    def __init__(self, now: float, tracks: Mapping[TrackKey, Track], tainted: Set[str]) -> None:
        self.now = now
        self.previous = tracks
        self.tainted = tainted
        self.next: dict[TrackKey, Track] = {}
        self.transitions: list[Transition] = []
        self.breakers: dict[str, BreakerStatus] = {}

    def follow(
        self,
        device_type: str,
        policy: ThermalPolicy,
        readings: Readings,
        deployments: list[ServingDeployment],
        override_of: str | None,
        own_limits: Limits | None = None,
        condition: Condition = "temperature",
    ) -> None:
        """Step the tracks of one condition: temperature under `policy`'s thresholds, or another
        condition under `own_limits`. A track seen for the first time starts tripped where its pods are
        off: the cluster does not say which condition cut them, so each must clear before they return."""
        limits = temperature_limits(policy) if own_limits is None else own_limits
        pods = [pod for d in deployments for pod in d.pods if pod.node]
        nodes = set(readings.nodes) if override_of is None else set()
        nodes |= {pod.node for pod in pods if pod.node}
        for node in sorted(nodes):
            off = [p for p in pods if p.node == node and not p.traffic_on]
            key = TrackKey(device_type, node, None, limits_key(limits), condition)
            tainted = override_of is None and condition == "temperature" and node in self.tainted
            self._step(key, readings.node(node), limits, policy, override_of, bool(off) or tainted, off)
        if policy.scope != "device":
            return
        devices = {key for key in readings.devices if key[0] in nodes}
        for pod in pods:
            devices |= set(readings.pod_devices.get(pod.key, ()))
        for node, device in sorted(devices):
            held = readings.pod_devices
            off = [p for p in pods if not p.traffic_on and (node, device) in held.get(p.key, ())]
            key = TrackKey(device_type, node, device, limits_key(limits), condition)
            self._step(key, readings.device((node, device)), limits, policy, override_of, bool(off), off)

    def _step(
        self,
        key: TrackKey,
        reading: float | None,
        limits: Limits,
        policy: ThermalPolicy,
        override_of: str | None,
        rebuilt_hot: bool,
        off: list[ServingPod],
    ) -> None:
        if key in self.next:
            return
        before = self.previous.get(key)
        if before is None:
            since = min((p.off_since for p in off if p.off_since is not None), default=self.now)
            before = start(self.now, hot=rebuilt_hot, since=since if rebuilt_hot else None)
        after = step(before, reading, self.now, limits)
        self.next[key] = after
        if after.hot != before.hot:
            self.transitions.append(Transition(key, after.hot, after.temperature, policy, override_of))

    def hold(
        self,
        device_type: str,
        policy: ThermalPolicy,
        temps: Temperatures,
        deployments: list[ServingDeployment],
    ) -> None:
        """The breaker over the type's nodes: which affected nodes are cut, which held back."""
        affected: dict[str, float] = {}
        for key, track in self.next.items():
            if key.device_type == device_type and track.hot:
                affected[key.node] = min(track.since, affected.get(key.node, track.since))
        cut_now = {p.node for d in deployments for p in d.pods if p.node and not p.traffic_on}
        cut_now |= set(self.tainted)
        self.breakers[device_type] = hold(affected, cut_now, len(temps.nodes), policy.breaker)

    def _track(
        self,
        device_type: str,
        policy: ThermalPolicy,
        node: str,
        device: str | None,
        condition: Condition = "temperature",
    ) -> Track | None:
        return self.next.get(TrackKey(device_type, node, device, limits_of(policy, condition), condition))

    def _tripped(self, device_type: str, policy: ThermalPolicy, view: PodView) -> tuple[bool, Message | None]:
        """Whether a condition cuts `view`'s traffic, and why: its node's track, or with scope
        `device` the tracks of the devices it holds; temperature first, then health."""
        if view.node is None:
            return False, None
        for condition in conditions_of(policy):
            if policy.scope == "device" and view.devices:
                for device in view.devices:
                    track = self._track(device_type, policy, view.node, device, condition)
                    if track is not None and track.hot:
                        where = Message("thermal.where.device", {"device": device, "node": view.node})
                        return True, why(where, track, policy, condition)
                continue
            track = self._track(device_type, policy, view.node, None, condition)
            if track is not None and track.hot:
                where = Message("thermal.where.node", {"node": view.node})
                return True, why(where, track, policy, condition)
        return False, None

    def decide(
        self, device_type: str, policy: ThermalPolicy, temps: Temperatures, deployment: ServingDeployment
    ) -> list[Decision]:
        breaker = self.breakers.get(device_type)
        waiting = set(breaker.waiting) if breaker is not None else set()

        def is_hot(view: PodView) -> tuple[bool, Message | None]:
            # A node the breaker holds back is not cut here; it is marked kept below.
            if view.node in waiting:
                return False, None
            return self._tripped(device_type, policy, view)

        pods = {pod.name: pod for pod in deployment.pods}
        view = DeploymentView(
            namespace=deployment.namespace,
            name=deployment.name,
            device_type=device_type,
            policy=policy,
            pods=tuple(
                PodView(
                    namespace=pod.namespace,
                    name=pod.name,
                    node=pod.node,
                    devices=tuple(d for _, d in temps.pod_devices.get(pod.key, ())),
                    ready=pod.ready,
                    traffic_on=pod.traffic_on,
                )
                for pod in deployment.pods
            ),
        )
        decided = decide(view, is_hot)
        if waiting and breaker is not None and policy.enabled:
            decided = tuple(held_back(d, breaker, self._tripped(device_type, policy, d.pod)) for d in decided)
        return [_decision(deployment, pods[d.pod.name], d) for d in decided]

    def taints(
        self, policies: Mapping[str, ThermalPolicy], temperatures: Mapping[str, Temperatures]
    ) -> dict[str, bool]:
        wanted: dict[str, bool] = {}
        known: set[str] = set()
        for device_type, policy in policies.items():
            if device_type not in temperatures:
                continue
            for key, track in self.next.items():
                if key.device_type != device_type or key.condition != "temperature":
                    continue
                if key.thresholds != thresholds(policy):
                    continue
                if not track.stale:
                    known.add(key.node)
                breaker = self.breakers.get(device_type)
                held = breaker is not None and key.node in breaker.waiting
                if policy.enabled and policy.taint_node and track.hot and not held:
                    wanted[key.node] = True
        changes = {node: True for node in wanted if node not in self.tainted}
        for node in self.tainted:
            # A stale node keeps its taint: no unblocking because a reading went missing.
            if node not in wanted and node in known:
                changes[node] = False
        return changes

    def status(
        self,
        device_type: str,
        policy: ThermalPolicy,
        temps: Temperatures,
        serving: tuple[ServingDeployment, ...],
        decisions: list[Decision],
    ) -> DeviceTypeStatus:
        nodes = []
        own = thresholds(policy)
        breaker = self.breakers.get(device_type)
        for key, track in sorted(self.next.items(), key=lambda item: item[0].node):
            if key.device_type != device_type or key.device is not None or key.thresholds != own:
                continue
            if key.condition != "temperature":
                continue
            hot_devices = self._tripped_devices(device_type, key.node, own, "temperature")
            unhealthy = self._cut_by(device_type, key.node, policy, "unhealthy")
            custom = self._cut_by(device_type, key.node, policy, "custom")
            here = [
                d for d in decisions if d.deployment.device_type == device_type and d.pod.node == key.node
            ]
            nodes.append(
                NodeStatus(
                    node=key.node,
                    state=track.state,
                    temperature_celsius=track.temperature,
                    since=track.since,
                    hot=track.hot or bool(hot_devices),
                    hot_devices=hot_devices,
                    unhealthy=unhealthy is not None,
                    unhealthy_devices=unhealthy or (),
                    custom=custom is not None,
                    custom_devices=custom or (),
                    held=breaker is not None and key.node in breaker.waiting,
                    deployments=tuple(
                        sorted({f"{d.deployment.namespace}/{d.deployment.name}" for d in here})
                    ),
                    pods=tuple(
                        PodTraffic(
                            namespace=d.pod.namespace,
                            name=d.pod.name,
                            deployment=d.deployment.name,
                            traffic_on=d.traffic_on,
                            reason=d.reason,
                            kept=d.kept,
                        )
                        for d in here
                    ),
                    stale_reason=(temps.unusable or Message("thermal.stale.no_reading"))
                    if track.stale
                    else None,
                )
            )
        return DeviceTypeStatus(device_type, policy, tuple(nodes), temps.unusable, breaker)

    def _tripped_devices(
        self, device_type: str, node: str, limits: Thresholds, condition: Condition
    ) -> tuple[str, ...]:
        return tuple(
            sorted(
                k.device
                for k, t in self.next.items()
                if k.device is not None
                and (k.device_type, k.node, k.condition) == (device_type, node, condition)
                and k.thresholds == limits
                and t.hot
            )
        )

    def _cut_by(
        self, device_type: str, node: str, policy: ThermalPolicy, condition: Condition
    ) -> tuple[str, ...] | None:
        """The node's devices `condition` cuts (empty: the node as a whole, with scope `node`); None
        when it does not cut the node."""
        if condition not in conditions_of(policy):
            return None
        limits = limits_of(policy, condition)
        devices = self._tripped_devices(device_type, node, limits, condition)
        whole = self.next.get(TrackKey(device_type, node, None, limits, condition))
        if devices or (whole is not None and whole.hot):
            return devices
        return None


def _decision(deployment: ServingDeployment, pod: ServingPod, decided: PodDecision) -> Decision:
    return Decision(deployment, pod, decided.traffic_on, decided.reason, decided.kept)
