"""Which of a deployment's pods receive traffic: off where a condition trips (hot, unhealthy), except
beyond the breaker's share of its replicas, and except the last routable replica, which is kept unless
the policy allows a full shutoff."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nufi.messages import Message
from nufi.thermal.policy import ThermalPolicy


@dataclass(frozen=True)
class PodView:
    namespace: str
    name: str
    node: str | None
    devices: tuple[str, ...]
    ready: bool
    traffic_on: bool


@dataclass(frozen=True)
class DeploymentView:
    namespace: str
    name: str
    device_type: str
    policy: ThermalPolicy
    pods: tuple[PodView, ...]


@dataclass(frozen=True)
class PodDecision:
    pod: PodView
    traffic_on: bool
    # Why traffic is off, or (kept) why a hot pod keeps it: a message, worded by whoever shows it.
    reason: Message | None = None
    kept: bool = False


HotCheck = Callable[[PodView], tuple[bool, Message | None]]


def decide(deployment: DeploymentView, is_hot: HotCheck) -> tuple[PodDecision, ...]:
    if not deployment.policy.enabled:
        return tuple(PodDecision(pod, True) for pod in deployment.pods)
    judged = [(pod, *is_hot(pod)) for pod in deployment.pods]
    decisions = {pod.name: PodDecision(pod, not hot, why if hot else None) for pod, hot, why in judged}
    _hold_beyond_share(deployment, [(pod, why) for pod, hot, why in judged if hot], decisions)
    routable = [d.pod for d in decisions.values() if d.traffic_on and d.pod.ready]
    hot_ready = [(pod, why) for pod, hot, why in judged if hot and pod.ready]
    if not routable and hot_ready and not deployment.policy.allow_full_shutoff:
        # The one already serving first (no needless switch), then by name for a stable choice.
        pod, why = min(hot_ready, key=lambda item: (not item[0].traffic_on, item[0].name))
        reason = Message(
            "thermal.reason.kept_last_replica",
            {"deployment": f"{deployment.namespace}/{deployment.name}", "why": why},
        )
        decisions[pod.name] = PodDecision(pod, True, reason, kept=True)
    return tuple(decisions[pod.name] for pod in deployment.pods)


def _hold_beyond_share(
    deployment: DeploymentView,
    tripped: list[tuple[PodView, Message | None]],
    decisions: dict[str, PodDecision],
) -> None:
    """Keep serving the tripped pods beyond the breaker's share of the replicas: those already off
    stay off first (no needless switch), then by name."""
    breaker = deployment.policy.breaker
    replicas = len(deployment.pods)
    allowed = breaker.allowed(breaker.max_replica_share, replicas)
    if len(tripped) <= allowed:
        return
    ordered = sorted(tripped, key=lambda item: (item[0].traffic_on, item[0].name))
    for pod, why in ordered[allowed:]:
        reason = Message(
            "thermal.reason.breaker_replicas",
            {
                "deployment": f"{deployment.namespace}/{deployment.name}",
                "why": why,
                "allowed": allowed,
                "replicas": replicas,
            },
        )
        decisions[pod.name] = PodDecision(pod, True, reason, kept=True)
