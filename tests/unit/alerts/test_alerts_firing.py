"""Prometheus' alerts read into NuFi's terms: only NuFi's rules, pending and firing, masked per reader."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nufi.alerts.firing import masked, read_alerts
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT


def _alert(state: str = "firing", **labels: str) -> dict[str, Any]:
    base = {"alertname": "NuFiDeviceHot", "nufi_alert": "hot", "device_type": "lpu", "severity": "critical"}
    return {
        "labels": base | labels,
        "annotations": {"summary": "..."},
        "state": state,
        "activeAt": "2026-12-05T18:40:01.123456789Z",
        "value": "9.5e+01",
    }


def test_nufis_alerts_are_read_with_their_device_and_pod_and_others_are_left_out() -> None:
    data = {
        "alerts": [
            _alert("pending", node="lpu-node-2", device="1"),
            _alert(node="lpu-node-1", device="0", pod="chat-0", namespace="team-a"),
            {"labels": {"alertname": "Watchdog"}, "state": "firing", "value": "1"},
            _alert("inactive", node="lpu-node-1", device="3"),
            _alert(nufi_alert="made-up", node="n", device="0"),
        ]
    }
    alerts = read_alerts(data)
    assert [(a.state, a.node, a.device, a.pod, a.namespace) for a in alerts] == [
        ("firing", "lpu-node-1", "0", "chat-0", "team-a"),
        ("pending", "lpu-node-2", "1", None, None),
    ]
    first = alerts[0]
    assert (first.name, first.rule, first.device_type, first.severity, first.value) == (
        "NuFiDeviceHot",
        "hot",
        "lpu",
        "critical",
        95.0,
    )
    assert (
        first.active_since is not None
        and first.active_since.isoformat() == "2026-12-05T18:40:01.123456+00:00"
    )
    summary = first.summary("HyperAccel LPU")
    assert summary.code == "alerts.rule.hot.summary"
    assert summary.text("en") == "HyperAccel LPU device 0 on lpu-node-1 is hot (95 °C)"
    assert "과열" in summary.text("ko")


def test_pods_of_hidden_projects_are_another_project_and_the_rest_keep_their_names() -> None:
    alerts = read_alerts(
        {
            "alerts": [
                _alert(node="n", device="0", pod="chat-0", namespace="team-a"),
                _alert(node="n", device="1", pod="mine-0", namespace="team-b"),
                _alert(node="n", device="2"),
            ]
        }
    )
    shown = masked(alerts, lambda namespace: namespace == "team-a")
    assert [(a.device, a.pod, a.namespace) for a in shown] == [
        ("0", ANOTHER_PROJECT, ANOTHER_PROJECT),
        ("1", "mine-0", "team-b"),
        ("2", None, None),
    ]


_json = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(_json)
def test_any_answer_is_read_without_raising(data: Any) -> None:
    # Whatever a proxy or another engine answers, the page shows what it can, never a 500.
    for alert in read_alerts({"alerts": data} if not isinstance(data, dict) else data):
        assert alert.state in ("firing", "pending")
