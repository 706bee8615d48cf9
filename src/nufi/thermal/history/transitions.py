"""A transition as the history keeps it: the event row with its English message (for kubectl readers
and old rows), the pods whose traffic it changed, and the policy it was judged by."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from nufi.thermal.assessment import Decision, Transition
from nufi.thermal.conditions import TRIPPED_STATE
from nufi.thermal.history.records import ThermalEvent


def name_of(decision: Decision) -> str:
    return f"{decision.pod.namespace}/{decision.pod.name}"


def history_event(transition: Transition, pods: list[Decision], now: float) -> ThermalEvent:
    key = transition.key
    where = key.node if key.device is None else f"device {key.device} on {key.node}"
    reading = "" if transition.temperature is None else f" at {transition.temperature:g} °C"
    policy = transition.policy
    if key.condition == "custom":
        own = policy.custom
        if transition.hot:
            message = f"{where} read {own.name} at or above {own.trip_at:g} for {own.trip_hold_seconds} s"
        else:
            message = f"{where} read {own.name} at or below {own.resume_at:g} for {own.resume_hold_seconds} s"
    elif key.condition == "unhealthy":
        condition = policy.unhealthy
        if transition.hot:
            message = f"{where} unhealthy for {condition.trip_hold_seconds} s"
        else:
            message = f"{where} healthy again for {condition.resume_hold_seconds} s"
    elif transition.hot:
        message = f"{where}{reading} reached {policy.trip_celsius:g} °C for {policy.trip_hold_seconds} s"
    else:
        message = (
            f"{where}{reading} back at or below {policy.resume_celsius:g} °C "
            f"for {policy.resume_hold_seconds} s"
        )
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


def _kept(decision: Decision) -> dict[str, Any]:
    message = None if decision.reason is None else decision.reason.to_data()
    return {"pod": name_of(decision), "reason": decision.reason_text, "reason_message": message}
