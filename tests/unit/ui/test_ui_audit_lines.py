"""The audit page's words: every action a writer may record is named in both languages, every field of
the states the writers record has a label, and a change reads as a line in the reader's language."""

from __future__ import annotations

from typing import Any

import pytest

from nufi.alerts.thresholds import AlertThresholds
from nufi.db.type_dependents import RemovedDependents
from nufi.devices.audit import ABSENT, ACTIONS, LeafChange, leaf_changes
from nufi.devices.presets import official_presets
from nufi.devices.stored import audit_view
from nufi.thermal.policy import ThermalPolicy
from nufi.ui.i18n import Language, Translator, text
from nufi.ui.parts.audit_lines import change_line
from support.audit_words import unworded
from support.languages import HANGUL, english_sentences

NAMES = {"lpu": "HyperAccel LPU"}


def lines(language: Language, before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[str]:
    return [change_line(Translator(language), change, NAMES) for change in leaf_changes(before, after)]


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_is_named_in_both_languages(action: str) -> None:
    korean, english = text("ko", f"audit.action.{action}"), text("en", f"audit.action.{action}")
    assert HANGUL.search(korean) and english_sentences(korean) == [], korean
    assert action not in english and not HANGUL.search(english), english


def test_every_field_of_the_catalog_s_and_protection_s_states_has_a_label() -> None:
    states = [audit_view(preset) for preset in official_presets()]
    policy, thresholds = ThermalPolicy().model_dump(mode="json"), AlertThresholds().model_dump(mode="json")
    states += [policy, thresholds, {"dependents": RemovedDependents(policy, thresholds, 3).audit_view()}]
    for state in states:
        assert unworded(state) == set(), state


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["Trip temperature: 85.0 °C → 90.0 °C", "Unhealthy devices · Enabled: off → on"]),
        ("ko", ["차단 온도: 85.0 °C → 90.0 °C", "비정상 디바이스 · 사용: 끔 → 켬"]),
    ],
)
def test_a_policy_change_reads_as_leaf_lines_without_bookkeeping(
    language: Language, expected: list[str]
) -> None:
    # As the thermal service records it: where the old policy came from, beside it.
    before = ThermalPolicy().model_dump(mode="json")
    after = ThermalPolicy.model_validate(
        before | {"trip_celsius": 90.0, "unhealthy": before["unhealthy"] | {"enabled": True}}
    ).model_dump(mode="json")
    assert lines(language, before | {"source": "admin"}, after) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["Accelerators · HyperAccel LPU: 3 → 4", "Storage: — → 100Gi"]),
        ("ko", ["가속기 · HyperAccel LPU: 3 → 4", "스토리지: — → 100Gi"]),
    ],
)
def test_a_quota_change_names_the_type(language: Language, expected: list[str]) -> None:
    before = {"devices": {"lpu": 3}, "resource_keys": {"lpu": "hyperaccel.ai/lpu"}, "storage": None}
    after = {"devices": {"lpu": 4}, "resource_keys": {"lpu": "hyperaccel.ai/lpu"}, "storage": "100Gi"}
    assert lines(language, before, after) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["Accelerator: HyperAccel LPU", "Kind: JupyterLab", "Storage: 10 GiB"]),
        ("ko", ["가속기: HyperAccel LPU", "종류: JupyterLab", "스토리지: 10 GiB"]),
    ],
)
def test_a_creation_lists_what_it_made_in_words(language: Language, expected: list[str]) -> None:
    assert lines(language, None, {"device_type": "lpu", "kind": "jupyter", "storage_gib": 10}) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Circuit breaker · Most nodes cut at once: 30 % → 50 %"),
        ("ko", "서킷 브레이커 · 동시에 차단할 최대 노드 비율: 30 % → 50 %"),
    ],
)
def test_a_share_reads_as_a_percentage(language: Language, expected: str) -> None:
    change = LeafChange(("breaker", "max_node_share"), 0.3, 0.5)
    assert change_line(Translator(language), change, NAMES) == expected


@pytest.mark.parametrize(("language", "seconds"), [("en", "10 s → 20 s"), ("ko", "10초 → 20초")])
def test_a_hold_reads_in_seconds(language: Language, seconds: str) -> None:
    change = LeafChange(("custom", "trip_hold_seconds"), 10, 20)
    assert change_line(Translator(language), change, NAMES).endswith(f": {seconds}")


def test_a_removed_member_list_and_an_override_read_in_words() -> None:
    t = Translator("en")
    assert change_line(t, LeafChange(("members",), ["alice", "bob"], ["alice"]), NAMES) == (
        "Members: alice, bob → alice"
    )
    (override,) = leaf_changes({"value": None}, {"value": '{"trip_celsius": 80}'})
    assert change_line(t, override, NAMES) == "Per-deployment setting: — → Trip temperature: 80 °C"
    assert change_line(t, LeafChange(("members",), ABSENT, []), NAMES) == "Members: —"
