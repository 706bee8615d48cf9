"""Thermal traffic control: policies, the hysteresis state machine, per-pod plans and dry runs."""

from nufi.thermal.hysteresis import ThermalState, Track, start, step
from nufi.thermal.plan import DeploymentView, PodDecision, PodView, decide
from nufi.thermal.policy import PolicyOverride, Scope, ThermalPolicy, default_policy
from nufi.thermal.replay import NodeReplay, ReplayTransition, replay

__all__ = [
    "DeploymentView",
    "NodeReplay",
    "PodDecision",
    "PodView",
    "PolicyOverride",
    "ReplayTransition",
    "Scope",
    "ThermalPolicy",
    "ThermalState",
    "Track",
    "decide",
    "default_policy",
    "replay",
    "start",
    "step",
]
