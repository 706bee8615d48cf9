"""Status conditions as every controller writes them: a transition time that moves only on a change."""

from __future__ import annotations

from typing import Any

Condition = dict[str, Any]


def find_condition(conditions: list[Condition] | None, kind: str) -> Condition | None:
    for condition in conditions or []:
        if condition.get("type") == kind:
            return condition
    return None


def condition_true(conditions: list[Condition] | None, kind: str) -> bool:
    found = find_condition(conditions, kind)
    return found is not None and found.get("status") == "True"


def set_condition(
    conditions: list[Condition],
    kind: str,
    status: str,
    *,
    now: str,
    reason: str | None = None,
    message: str | None = None,
    probe_time: bool = False,
    update_time: bool = False,
) -> bool:
    """Put the condition in place (same position if present); returns whether anything changed.

    The transition time moves only when the status flips, as the API conventions demand; optional
    update times move whenever reason or message changes."""
    existing = find_condition(conditions, kind)
    wanted: Condition = {"type": kind, "status": status}
    if reason:
        wanted["reason"] = reason
    if message:
        wanted["message"] = message
    if existing is not None:
        same_status = existing.get("status") == status
        same_text = existing.get("reason") == wanted.get("reason") and existing.get("message") == wanted.get(
            "message"
        )
        if same_status and same_text:
            return False
        wanted["lastTransitionTime"] = existing.get("lastTransitionTime", now) if same_status else now
    else:
        wanted["lastTransitionTime"] = now
    if probe_time:
        wanted["lastProbeTime"] = None
    if update_time:
        wanted["lastUpdateTime"] = now
    if existing is not None:
        conditions[conditions.index(existing)] = wanted
    else:
        conditions.append(wanted)
    return True
