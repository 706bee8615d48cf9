"""Which pods of a deployment take traffic, given which of them sit on hot nodes or devices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nufi.thermal.policy import ThermalPolicy


@dataclass(frozen=True)
class PodView:
    namespace: str
    name: str
    node: str | None
    devices: tuple[str, ...]  # device IDs attributed to the pod
    ready: bool  # Ready condition True
    traffic_on: bool  # current label (missing counts as on)


@dataclass(frozen=True)
class DeploymentView:
    namespace: str
    name: str
    device_type: str
    policy: ThermalPolicy  # effective: override applied
    pods: tuple[PodView, ...]


@dataclass(frozen=True)
class PodDecision:
    pod: PodView
    traffic_on: bool
    reason: str | None  # why off, or why kept on
    kept: bool  # hot but kept on as the last routable replica


def decide(
    deployment: DeploymentView, is_hot: Callable[[PodView], tuple[bool, str | None]]
) -> tuple[PodDecision, ...]:
    """One decision per pod, in the deployment's pod order."""
    if not deployment.policy.enabled:
        return tuple(PodDecision(pod, True, None, False) for pod in deployment.pods)
    verdicts = [(pod, *is_hot(pod)) for pod in deployment.pods]
    decisions = [PodDecision(pod, not hot, why if hot else None, False) for pod, hot, why in verdicts]
    routable = any(d.traffic_on and d.pod.ready for d in decisions)
    if routable or deployment.policy.allow_full_shutoff:
        return tuple(decisions)
    candidates = [i for i, (pod, hot, _) in enumerate(verdicts) if hot and pod.ready]
    if not candidates:
        return tuple(decisions)
    # Prefer the pod already taking traffic (no flip), then a stable choice by name.
    keep = min(candidates, key=lambda i: (not verdicts[i][0].traffic_on, verdicts[i][0].name))
    why = f"last routable replica of {deployment.namespace}/{deployment.name}; full shutoff not allowed"
    decisions[keep] = PodDecision(decisions[keep].pod, True, why, True)
    return tuple(decisions)
