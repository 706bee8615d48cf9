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
from nufi.thermal.hysteresis import Track, start, step
from nufi.thermal.plan import DeploymentView, PodDecision, PodView, decide
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.serving import ServingDeployment, ServingPod
from nufi.thermal.status import DeviceTypeStatus, NodeStatus, PodTraffic
from nufi.thermal.temperatures import Temperatures

Thresholds = tuple[float, float, int, int]


@dataclass(frozen=True)
class TrackKey:
    device_type: str
    node: str
    device: str | None
    thresholds: Thresholds


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


def thresholds(policy: ThermalPolicy) -> Thresholds:
    return (policy.trip_celsius, policy.resume_celsius, policy.trip_hold_seconds, policy.resume_hold_seconds)


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
) -> Assessment:
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

    def follow(
        self,
        device_type: str,
        policy: ThermalPolicy,
        temps: Temperatures,
        deployments: list[ServingDeployment],
        override_of: str | None,
    ) -> None:
        pods = [pod for d in deployments for pod in d.pods if pod.node]
        nodes = set(temps.nodes) if override_of is None else set()
        nodes |= {pod.node for pod in pods if pod.node}
        for node in sorted(nodes):
            off = [p for p in pods if p.node == node and not p.traffic_on]
            key = TrackKey(device_type, node, None, thresholds(policy))
            rebuilt_hot = bool(off) or (override_of is None and node in self.tainted)
            self._step(key, temps.node(node), policy, override_of, rebuilt_hot, off)
        if policy.scope != "device":
            return
        devices = {key for key in temps.devices if key[0] in nodes}
        for pod in pods:
            devices |= set(temps.pod_devices.get(pod.key, ()))
        for node, device in sorted(devices):
            off = [p for p in pods if not p.traffic_on and (node, device) in temps.pod_devices.get(p.key, ())]
            key = TrackKey(device_type, node, device, thresholds(policy))
            self._step(key, temps.device((node, device)), policy, override_of, bool(off), off)

    def _step(
        self,
        key: TrackKey,
        reading: float | None,
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
        after = step(before, reading, self.now, policy)
        self.next[key] = after
        if after.hot != before.hot:
            self.transitions.append(Transition(key, after.hot, after.temperature, policy, override_of))

    def _track(self, device_type: str, policy: ThermalPolicy, node: str, device: str | None) -> Track | None:
        return self.next.get(TrackKey(device_type, node, device, thresholds(policy)))

    def decide(
        self, device_type: str, policy: ThermalPolicy, temps: Temperatures, deployment: ServingDeployment
    ) -> list[Decision]:
        def is_hot(view: PodView) -> tuple[bool, Message | None]:
            if view.node is None:
                return False, None
            if policy.scope == "device" and view.devices:
                hot = []
                for device in view.devices:
                    track = self._track(device_type, policy, view.node, device)
                    if track is not None and track.hot:
                        hot.append((device, track))
                if not hot:
                    return False, None
                device, track = hot[0]
                return True, _why(
                    Message("thermal.where.device", {"device": device, "node": view.node}), track, policy
                )
            track = self._track(device_type, policy, view.node, None)
            if track is None or not track.hot:
                return False, None
            return True, _why(Message("thermal.where.node", {"node": view.node}), track, policy)

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
        return [_decision(deployment, pods[d.pod.name], d) for d in decide(view, is_hot)]

    def taints(
        self, policies: Mapping[str, ThermalPolicy], temperatures: Mapping[str, Temperatures]
    ) -> dict[str, bool]:
        wanted: dict[str, bool] = {}
        known: set[str] = set()
        for device_type, policy in policies.items():
            if device_type not in temperatures:
                continue
            for key, track in self.next.items():
                if key.device_type != device_type or key.thresholds != thresholds(policy):
                    continue
                if not track.stale:
                    known.add(key.node)
                if policy.enabled and policy.taint_node and track.hot:
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
        for key, track in sorted(self.next.items(), key=lambda item: item[0].node):
            if key.device_type != device_type or key.device is not None or key.thresholds != own:
                continue
            hot_devices = tuple(
                sorted(
                    k.device
                    for k, t in self.next.items()
                    if k.device is not None
                    and k.device_type == device_type
                    and k.node == key.node
                    and k.thresholds == own
                    and t.hot
                )
            )
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
        return DeviceTypeStatus(device_type, policy, tuple(nodes), temps.unusable)


def _why(where: Message, track: Track, policy: ThermalPolicy) -> Message:
    if track.stale:
        return Message("thermal.reason.hot_stale", {"where": where})
    limits = {"where": where, "trip": policy.trip_celsius, "resume": policy.resume_celsius}
    if track.temperature is None:
        return Message("thermal.reason.hot_no_reading", limits)
    # A tenth of a degree: what a sensor resolves, and what the Thermal page shows.
    return Message("thermal.reason.hot", {**limits, "temperature": round(track.temperature, 1)})


def _decision(deployment: ServingDeployment, pod: ServingPod, decided: PodDecision) -> Decision:
    return Decision(deployment, pod, decided.traffic_on, decided.reason, decided.kept)
