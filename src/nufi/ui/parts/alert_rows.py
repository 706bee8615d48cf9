"""Firing and pending alerts as the dashboard shows them: a row of the Alerts page, and the mark a
device (or a whole node) gets in Monitoring's table while an alert fires on it.

Every word comes from the catalogs: the one-line summary from the message catalog (the alert's own
code), states, severities and "another project" from the dashboard's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from nufi.alerts.firing import FiringAlert
from nufi.models.units import celsius, percent
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT
from nufi.ui.i18n import Translator
from nufi.ui.parts.moments import utc_text
from nufi.ui.parts.thermal_chips import chip
from nufi.ui.parts.workload_forms import age

# Written out, so each key is one the catalog checks (no key is built from a value).
_STATE = {"firing": "alerting.state.firing", "pending": "alerting.state.pending"}
_SEVERITY = {"critical": "alerting.severity.critical", "warning": "alerting.severity.warning"}
# Firing red like a hot device, pending amber like a stale one (`thermal_chips.COLORS`).
_STATE_KIND = {"firing": "hot", "pending": "stale"}
MARK_KIND = "alert"
MARK_COLOR = "red-7"

# (node, device): a device's alerts; (node, None): the alerts of the node as a whole.
Where = tuple[str, str | None]


def summary(alert: FiringAlert, t: Translator, type_name: str) -> str:
    said = alert.summary(type_name)
    return t.message(said.code, said.params)


def value_text(alert: FiringAlert) -> str:
    if alert.value is None:
        return "—"
    if alert.rule == "hot":
        return celsius(alert.value) or "—"
    if alert.rule == "memory":
        return percent(alert.value) or "—"
    return f"{alert.value:g}"


def pod_text(alert: FiringAlert, t: Translator) -> str:
    if alert.pod is None:
        return "—"
    if alert.pod == ANOTHER_PROJECT:
        return t("alerting.another_project")
    return f"{alert.namespace}/{alert.pod}" if alert.namespace else alert.pod


def alert_row(alert: FiringAlert, t: Translator, names: Mapping[str, str]) -> dict[str, Any]:
    """One row of the Alerts page's table; `since_at` holds the instant behind `since` (ISO)."""
    type_name = names.get(alert.device_type, alert.device_type)
    since = alert.active_since
    state = chip(_STATE_KIND[alert.state], t(_STATE[alert.state]))
    return {
        "key": "/".join(
            (alert.name, alert.device_type, alert.node or "", alert.device or "", alert.pod or "")
        ),
        "state": state["label"],
        "state_chips": [state],
        "severity": t(_SEVERITY[alert.severity]) if alert.severity in _SEVERITY else alert.severity,
        "device_type": type_name,
        "node": alert.node or "—",
        "device": alert.device or "—",
        "pod": pod_text(alert, t),
        "value": value_text(alert),
        "since": _since(since, t),
        "since_utc": "" if since is None else utc_text(since),
        "summary": summary(alert, t, type_name),
    }


def _since(at: datetime | None, t: Translator) -> str:
    return "—" if at is None else t("alerting.since", age=age(at.isoformat(), t))


def since_slot() -> str:
    """How long the alert has been active, its start in UTC as the tooltip."""
    return (
        '<q-td key="since" :props="props">'
        '<span :title="props.row.since_utc || null" class="text-no-wrap">{{ props.row.since }}</span>'
        "</q-td>"
    )


def marks(alerts: Iterable[FiringAlert], t: Translator, names: Mapping[str, str]) -> dict[Where, list[str]]:
    """The summaries of the firing alerts, by the device they are on, or by node for the alerts
    about a node as a whole (an exporter down, devices missing). Pending alerts mark nothing."""
    found: dict[Where, list[str]] = {}
    for alert in alerts:
        if alert.state != "firing" or alert.node is None:
            continue
        said = summary(alert, t, names.get(alert.device_type, alert.device_type))
        found.setdefault((alert.node, alert.device), []).append(said)
    return found


def mark_chips(
    found: Mapping[Where, list[str]], t: Translator, node: str, device: str | None
) -> list[dict[str, str]]:
    """The mark of one row of Monitoring's table: one red chip whose tooltip lists what fires on the
    device and on its node; none when nothing does."""
    said = list(found.get((node, None), ()))
    if device is not None:
        said += found.get((node, device), [])
    if not said:
        return []
    return [{"kind": MARK_KIND, "label": t("alerting.mark"), "color": MARK_COLOR, "title": "\n".join(said)}]
