"""The thermal history told in the page's language from a row's fields, not its stored English."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from nufi.thermal.history.records import ThermalEvent
from nufi.thermal.policy import ThermalPolicy
from nufi.ui.i18n import Translator
from nufi.ui.pages.thermal import _message

POLICY = ThermalPolicy().model_dump()  # 85 / 75 °C, held 10 / 30 s


def row(to_state: str, **details: Any) -> ThermalEvent:
    return ThermalEvent(
        at=datetime.now(UTC),
        device_type_id="lpu",
        node="lpu-node-1",
        device=details.pop("device", None),
        to_state=to_state,
        temperature_celsius=details.pop("temperature", 95.0),
        details={"policy": POLICY, "override_of": None, **details},
        message="lpu-node-1 at 95 °C reached 85 °C for 10 s",
    )


def test_a_trip_and_a_resume_read_in_korean_and_english() -> None:
    ko, en = Translator("ko"), Translator("en")
    assert _message(row("hot"), ko) == "lpu-node-1: 95.0 °C — 85 °C 이상이 10초 지속되어 과열"
    assert _message(row("hot"), en) == "lpu-node-1: 95.0 °C — at or above 85 °C for 10 s, hot"
    resumed = row("normal", temperature=70.5)
    assert _message(resumed, ko) == "lpu-node-1: 70.5 °C — 75 °C 이하가 30초 지속되어 정상 복귀"
    assert _message(resumed, en) == "lpu-node-1: 70.5 °C — at or below 75 °C for 30 s, back to normal"


def test_a_device_an_override_and_a_missing_reading_are_named() -> None:
    told = _message(row("hot", device="lpu3", temperature=None, override_of="team-a/llm"), Translator("en"))
    assert told == (
        "device lpu3 on lpu-node-1: no reading — at or above 85 °C for 10 s, hot"
        " (the override of deployment team-a/llm)"
    )
    assert "team-a/llm의 재정의" in _message(row("hot", override_of="team-a/llm"), Translator("ko"))


def test_a_row_without_its_policy_keeps_its_stored_message() -> None:
    broken = replace(row("hot"), details={"pods_off": []})
    assert _message(broken, Translator("ko")) == broken.message


def test_an_own_condition_without_a_name_is_told_in_the_pages_language() -> None:
    tripped = row("tripped", condition="custom")
    assert "사용자 정의 조건" in _message(tripped, Translator("ko")) and "custom" not in _message(
        tripped, Translator("ko")
    )
    assert "own condition" in _message(tripped, Translator("en"))
    named = {**POLICY, "custom": {**POLICY["custom"], "name": "ECC"}}
    told = _message(replace(tripped, details={**tripped.details, "policy": named}), Translator("ko"))
    assert "ECC" in told
