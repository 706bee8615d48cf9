"""A transition as the history keeps it: the event row with its English message (for kubectl readers
and old rows), the pods whose traffic it changed, and the policy it was judged by."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from nufi.thermal.history.records import ThermalEvent
from nufi.thermal.protection.assessment import Decision, Transition
from nufi.thermal.protection.conditions import TRIPPED_STATE


def name_of(decision: Decision) -> str:
    return f"{decision.pod.namespace}/{decision.pod.name}"


def history_event(transition: Transition, pods: list[Decision], now: float) -> ThermalEvent:
    key = transition.key
    policy = transition.policy
    message = _told(transition)
    if transition.override_of:
        message += f" (override of {transition.override_of})"
    return ThermalEvent(
        at=datetime.fromtimestamp(now, UTC),
        device_type_id=key.device_type,
        node=key.node,
        device=key.device,
        to_state=TRIPPED_STATE[key.condition] if transition.hot else "normal",
        temperature_celsius=transition.temperature if key.condition == "temperature" else None,
        details={
            "pods_off": [name_of(d) for d in pods if not d.traffic_on],
            "pods_on": [name_of(d) for d in pods if d.traffic_on and not d.kept],
            "pods_kept": [_kept(d) for d in pods if d.kept],
            "policy": policy.model_dump(),
            "override_of": transition.override_of,
            "condition": key.condition,
        },
        message=message,
    )


def _told(transition: Transition) -> str:
    """The transition in English, as kubectl readers and rows older than the messages read it."""
    key, policy, hot = transition.key, transition.policy, transition.hot
    where = key.node if key.device is None else f"device {key.device} on {key.node}"
    if key.condition == "custom":
        own = policy.custom
        bound, hold = (
            (own.trip_at, own.trip_hold_seconds) if hot else (own.resume_at, own.resume_hold_seconds)
        )
        return f"{where} read {own.name} at or {'above' if hot else 'below'} {bound:g} for {hold} s"
    if key.condition == "unhealthy":
        condition = policy.unhealthy
        hold = condition.trip_hold_seconds if hot else condition.resume_hold_seconds
        return f"{where} {'unhealthy' if hot else 'healthy again'} for {hold} s"
    reading = "" if transition.temperature is None else f" at {transition.temperature:g} °C"
    if hot:
        return f"{where}{reading} reached {policy.trip_celsius:g} °C for {policy.trip_hold_seconds} s"
    return (
        f"{where}{reading} back at or below {policy.resume_celsius:g} °C for {policy.resume_hold_seconds} s"
    )


def _kept(decision: Decision) -> dict[str, Any]:
    message = None if decision.reason is None else decision.reason.to_data()
    return {"pod": name_of(decision), "reason": decision.reason_text, "reason_message": message}
