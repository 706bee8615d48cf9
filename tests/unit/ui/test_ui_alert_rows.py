"""What the Alerts page and Monitoring's marks make of an alert: the row's words in the reader's
language (a masked pod included), and which rows a firing alert marks."""

from __future__ import annotations

from datetime import UTC, datetime

from nufi.alerts.firing import FiringAlert
from nufi.alerts.thresholds import RuleName
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT
from nufi.ui.i18n import Translator
from nufi.ui.parts.alert_rows import alert_row, mark_chips, marks

KO, EN = Translator("ko"), Translator("en")
NAMES = {"lpu": "HyperAccel LPU"}


def alert(
    rule: RuleName = "hot", state: str = "firing", device: str | None = "lpu1", **fields: object
) -> FiringAlert:
    values: dict[str, object] = {
        "name": "NuFiDeviceHot",
        "rule": rule,
        "device_type": "lpu",
        "state": state,
        "severity": "critical",
        "node": "n1",
        "device": device,
        "pod": None,
        "namespace": None,
        "value": 95.0,
        "active_since": datetime(2026, 1, 1, tzinfo=UTC),
    }
    return FiringAlert(**(values | fields))  # type: ignore[arg-type]


def test_a_row_speaks_the_readers_language_and_a_masked_pod_reads_another_project() -> None:
    masked = alert(pod=ANOTHER_PROJECT, namespace=ANOTHER_PROJECT)
    korean = alert_row(masked, KO, NAMES)
    assert korean["pod"] == "다른 프로젝트"
    assert korean["severity"] == "심각" and korean["state"] == "발생"
    assert korean["device_type"] == "HyperAccel LPU" and korean["value"] == "95.0 °C"
    assert korean["summary"] == "n1의 HyperAccel LPU 디바이스 lpu1 과열 (95 °C)"
    assert korean["since_utc"] == "2026-01-01 00:00:00 UTC"
    english = alert_row(alert(pod="llm-0", namespace="team", state="pending"), EN, NAMES)
    assert english["pod"] == "team/llm-0" and english["state"] == "Pending"
    assert [c["kind"] for c in english["state_chips"]] == ["stale"]  # amber: not firing yet


def test_a_firing_alert_marks_its_device_and_a_node_alert_every_row_of_its_node() -> None:
    found = marks(
        [alert(), alert(rule="exporter_down", device=None, node="n2"), alert(state="pending", device="lpu2")],
        EN,
        NAMES,
    )
    (hot,) = mark_chips(found, EN, "n1", "lpu1")
    assert hot["label"] == "Alert" and hot["title"] == "HyperAccel LPU device lpu1 on n1 is hot (95 °C)"
    assert mark_chips(found, EN, "n1", "lpu2") == []  # pending marks nothing
    (down,) = mark_chips(found, EN, "n2", "lpu0")
    assert down["title"] == "No HyperAccel LPU device on n2 reports metrics"
    assert mark_chips(found, EN, "n2", None) == [down]
