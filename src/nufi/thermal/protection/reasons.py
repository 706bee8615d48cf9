"""Why a pod's traffic is off, or why a pod a condition trips keeps serving: messages, worded by
whoever shows them."""

from __future__ import annotations

from nufi.messages import Message
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.breaker import BreakerStatus
from nufi.thermal.protection.conditions import Condition
from nufi.thermal.protection.hysteresis import Track
from nufi.thermal.protection.plan import PodDecision


def why(where: Message, track: Track, policy: ThermalPolicy, condition: Condition = "temperature") -> Message:
    if condition == "unhealthy":
        return Message("thermal.reason.unhealthy", {"where": where})
    if condition == "custom":
        own = policy.custom
        value = track.temperature if track.temperature is not None else own.trip_at
        limits = {"trip": own.trip_at, "resume": own.resume_at, "name": own.shown_name}
        return Message("thermal.reason.custom", {"where": where, "value": value, **limits})
    if track.stale:
        return Message("thermal.reason.hot_stale", {"where": where})
    limits = {"where": where, "trip": policy.trip_celsius, "resume": policy.resume_celsius}
    if track.temperature is None:
        return Message("thermal.reason.hot_no_reading", limits)
    # A tenth of a degree: what a sensor resolves, and what the Thermal page shows.
    return Message("thermal.reason.hot", {**limits, "temperature": round(track.temperature, 1)})


def held_back(
    decided: PodDecision, breaker: BreakerStatus, tripped: tuple[bool, Message | None]
) -> PodDecision:
    """A pod serving on a node the breaker holds back, although a condition trips it: kept, and why."""
    cut, why = tripped
    if not cut or not decided.traffic_on or decided.kept:
        return decided
    reason = Message(
        "thermal.reason.breaker_nodes",
        {"why": why, "allowed": breaker.allowed, "total": breaker.total_nodes},
    )
    return PodDecision(decided.pod, True, reason, kept=True)
