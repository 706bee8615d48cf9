"""A watched node's state as chips: the word and the colour agree with what thermal control did."""

from __future__ import annotations

from nufi.ui.i18n import Translator
from nufi.ui.parts.thermal_chips import chip_words, state_chips

EN, KO = Translator("en"), Translator("ko")


def kinds(chips: list[dict[str, str]]) -> list[tuple[str, str]]:
    return [(c["kind"], c["color"]) for c in chips]


def test_a_normal_node_is_one_green_chip() -> None:
    assert kinds(state_chips(EN, "normal", False, [True])) == [("normal", "green-7")]


def test_a_hot_node_whose_pods_are_off_is_red_and_says_cut() -> None:
    chips = state_chips(KO, "hot", True, [False, True])
    assert kinds(chips) == [("hot", "red-7"), ("cut", "red-7")]
    assert chip_words(chips) == "과열 · 트래픽 차단"


def test_a_hot_node_still_serving_its_last_replica_says_kept_in_amber() -> None:
    chips = state_chips(EN, "hot", True, [True])
    assert kinds(chips) == [("hot", "red-7"), ("kept", "amber-9")]
    assert chip_words(chips) == "Hot · traffic kept"


def test_a_node_hot_without_pods_and_a_stale_one_kept_cut_say_cut() -> None:
    assert kinds(state_chips(EN, "hot", True, [])) == [("hot", "red-7"), ("cut", "red-7")]
    assert kinds(state_chips(EN, "stale", True)) == [("stale", "amber-9"), ("cut", "red-7")]
    assert kinds(state_chips(EN, "stale", False)) == [("stale", "amber-9")]
