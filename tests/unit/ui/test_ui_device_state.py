"""A monitored device's state chips: each says what it is about, health only where the type maps it,
and no word meaning "fine" beside a mark that says otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from nufi.messages.catalog import Language
from nufi.monitoring.snapshots.snapshot import Health
from nufi.ui.i18n import Translator
from nufi.ui.parts.device_state import DataState, device_state
from nufi.ui.parts.thermal_chips import chip

ALERT = chip("alert", "Alert", "hot for 60 s")


def kinds(state: dict[str, Any]) -> list[str]:
    return [c["kind"] for c in state["state_chips"]]


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_hot_device_says_hot_and_nothing_that_means_fine(language: Language) -> None:
    t = Translator(language)
    for health in ("ok", "unknown"):
        state = device_state(t, None, health, "hot", [])
        assert kinds(state) == ["hot"]
        assert state["state"] == t("monitoring.thermal.hot")
    words = {t("monitoring.health.ok"), "OK", "정상"}
    for thermal in ("hot", "kept", "held", "stale", "unhealthy"):
        said = device_state(t, None, "ok", thermal, [])["state"]
        assert not any(word == part for word in words for part in said.split(" · ")), said


def test_fresh_data_has_no_chip_and_a_type_without_health_makes_no_claim() -> None:
    t = Translator("en")
    assert device_state(t, None, "unknown", None, []) == {"state": "", "state_chips": []}


def test_health_is_said_where_the_type_maps_it() -> None:
    t = Translator("ko")
    healthy = device_state(t, None, "ok", None, [])
    assert [(c["kind"], c["label"], c["color"]) for c in healthy["state_chips"]] == [
        ("healthy", "상태 정상", "green-7")
    ]
    sick = device_state(t, None, "unhealthy", "unhealthy", [])
    assert [(c["kind"], c["label"]) for c in sick["state_chips"]] == [
        ("unhealthy", "상태 비정상"),
        ("unhealthy", "비정상: 트래픽 차단"),
    ]


@pytest.mark.parametrize(
    ("data", "health", "alerts", "expected"),
    [
        ("stale", "ok", [], ["stale"]),
        ("implausible", "unknown", [], ["implausible"]),
        ("not_reporting", "unknown", [ALERT], ["not_reporting", "alert"]),
        (None, "ok", [ALERT], ["alert"]),
    ],
)
def test_data_problems_and_alerts_are_said_and_keep_healthy_off(
    data: DataState | None, health: Health, alerts: list[dict[str, str]], expected: list[str]
) -> None:
    assert kinds(device_state(Translator("en"), data, health, None, alerts)) == expected


@pytest.mark.parametrize(("language", "stale"), [("ko", "데이터 오래됨"), ("en", "Data stale")])
def test_stale_data_reads_as_the_datas_state(language: Language, stale: str) -> None:
    assert device_state(Translator(language), "stale", "unknown", None, [])["state"] == stale
