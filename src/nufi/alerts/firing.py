"""The generated rules' alerts as Prometheus holds them now (`/api/v1/alerts`: pending and firing),
read into NuFi's terms and masked for the reader like monitoring is."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, cast

from nufi.alerts.rules import RULE_LABEL, TYPE_LABEL
from nufi.alerts.thresholds import RULE_NAMES, RuleName
from nufi.messages import Message
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT, Hidden

AlertState = Literal["firing", "pending"]
_STATES: tuple[AlertState, ...] = ("firing", "pending")


@dataclass(frozen=True)
class FiringAlert:
    """One alert of a generated rule: on a device (hot, memory, unhealthy) or a node (the others)."""

    name: str
    rule: RuleName
    device_type: str
    state: AlertState
    severity: str
    node: str | None
    device: str | None
    pod: str | None
    namespace: str | None
    value: float | None
    active_since: datetime | None

    def summary(self, type_name: str) -> Message:
        """What the alert says in one line, worded by each face from the catalog."""
        params: dict[str, Any] = {
            "type": type_name,
            "node": self.node or "",
            "device": self.device or "",
            "pod": self.pod or "",
            "value": "" if self.value is None else f"{self.value:.3g}",
        }
        return Message(f"alerts.rule.{self.rule}.summary", params)


def read_alerts(data: Any) -> list[FiringAlert]:
    """The alerts of NuFi's rules in a `/api/v1/alerts` answer; others' alerts are left out."""
    items = data.get("alerts") if isinstance(data, Mapping) else None
    if not isinstance(items, list):
        return []
    found = [alert for item in items if (alert := _alert(item)) is not None]
    found.sort(key=lambda a: (a.state != "firing", a.device_type, a.node or "", a.device or "", a.rule))
    return found


def _alert(item: Any) -> FiringAlert | None:
    if not isinstance(item, Mapping):
        return None
    labels = item.get("labels")
    if not isinstance(labels, Mapping):
        return None
    rule, device_type, state = labels.get(RULE_LABEL), labels.get(TYPE_LABEL), item.get("state")
    if rule not in RULE_NAMES or not isinstance(device_type, str) or state not in _STATES:
        return None
    return FiringAlert(
        name=str(labels.get("alertname", "")),
        rule=cast(RuleName, rule),
        device_type=device_type,
        state=cast(AlertState, state),
        severity=str(labels.get("severity", "")),
        node=_text(labels.get("node")),
        device=_text(labels.get("device")),
        pod=_text(labels.get("pod")),
        namespace=_text(labels.get("namespace")),
        value=_number(item.get("value")),
        active_since=_instant(item.get("activeAt")),
    )


def masked(alerts: Iterable[FiringAlert], hidden: Hidden) -> list[FiringAlert]:
    """`alerts` with the pods of namespaces `hidden` says named "another project"."""
    return [
        replace(a, pod=ANOTHER_PROJECT, namespace=ANOTHER_PROJECT) if a.pod and hidden(a.namespace) else a
        for a in alerts
    ]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _instant(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
