"""The dashboard's one catalog of texts, the browser's language, and values as a person reads them."""

from __future__ import annotations

import importlib.util
import pathlib
import string

from hypothesis import given
from hypothesis import strategies as st

from nufi.models.units import human_bytes, memory
from nufi.ui.i18n import (
    CATALOG,
    DASHBOARD_AREAS,
    LANGUAGES,
    Translator,
    missing_keys,
    preferred_language,
    text,
)
from support.locale_keys import scan


def test_every_key_is_there_in_both_languages() -> None:
    assert missing_keys() == {language: set() for language in LANGUAGES}
    for language in LANGUAGES:
        # A service's message may be empty (nothing to add); a label never.
        labels = [text for texts in DASHBOARD_AREAS[language].values() for text in texts.values()]
        assert labels and all(label.strip() for label in labels), language


def test_both_languages_take_the_same_fields() -> None:
    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    for key, korean in CATALOG["ko"].items():
        assert fields(korean) == fields(CATALOG["en"][key]), key


def test_the_sign_in_pages_take_every_sentence_from_the_catalog() -> None:
    spec = importlib.util.find_spec("nufi.ui.signin")
    assert spec is not None and spec.origin is not None
    source = pathlib.Path(spec.origin).read_text()
    used = set(scan({"signin.py": source}, {key.split(".")[0] for key in CATALOG["ko"]}).keys)
    pages = {
        "signin.again",
        "signin.unreachable.message",
        "signin.unfinished.state",
        "signout.refused.message",
    }
    assert pages <= used, pages - used
    for language in LANGUAGES:
        assert used <= set(CATALOG[language]), (language, used - set(CATALOG[language]))
    assert "lang='en'" not in source  # the page's language is the reader's


def test_fields_are_filled_in() -> None:
    assert text("en", "monitoring.page", first=1, last=25, total=1000) == "1 to 25 of 1000 nodes"
    assert text("ko", "monitoring.page", first=1, last=25, total=1000) == "1~25 / 노드 1000개"


def test_the_browsers_first_language_nufi_speaks_wins() -> None:
    assert preferred_language("en-US,en;q=0.9,ko;q=0.8") == "en"
    assert preferred_language("ko-KR,ko;q=0.9,en-US;q=0.8") == "ko"
    assert preferred_language("fr-FR,fr;q=0.9,en;q=0.5,ko;q=0.7") == "ko"
    assert preferred_language("en;q=0, ko;q=0.1") == "ko"
    assert preferred_language("de") == "ko"  # neither: Korean, NuFi's first language
    assert preferred_language(None) == "ko"


@given(st.text(max_size=80))
def test_any_accept_language_gives_a_language(header: str) -> None:
    assert preferred_language(header) in LANGUAGES


def test_sizes_are_binary_and_missing_stays_missing() -> None:
    assert human_bytes(31457280000) == "29.3 GiB"
    assert human_bytes(512) == "512 B"
    assert human_bytes(None) is None
    assert memory(None, None) is None
    assert memory(1024**3, None) == "1.0 GiB / ?"


def test_wizard_samples_are_readable() -> None:
    from nufi.ui.wizard.render import sample_value

    assert sample_value(34359738.0) == "34,359,738"
    assert sample_value(35.03) == "35.03"
    assert sample_value(0.000123) == "0.000123"
    assert sample_value(float("nan")) == "nan"


def test_wizard_memory_samples_read_as_sizes_in_the_unit_the_expression_reports() -> None:
    from nufi.devices.units import MemoryUnit
    from nufi.ui.wizard.render import sample_value

    # The LPU's bytes as Monitoring shows them, not "34,359,738" and "17,179,869,184".
    assert sample_value(34359738.0, MemoryUnit.BYTES) == "32.8 MiB"
    assert sample_value(17179869184.0, MemoryUnit.BYTES) == "16.0 GiB"
    assert sample_value(16384.0, MemoryUnit.MIB) == "16.0 GiB"  # DCGM reports MiB


def test_a_dashboard_text_takes_the_plural_of_its_number_in_each_language() -> None:
    english, korean = Translator("en"), Translator("ko")
    once = english("thermal.dry_run.breaker", count=1, allowed=1, total=3)
    twice = english("thermal.dry_run.breaker", count=2, allowed=1, total=3)
    assert "held 1 time:" in once and "held 2 times:" in twice
    # Korean has no plural: the same words, only the number changes.
    assert korean("thermal.dry_run.breaker", count=1, allowed=1, total=3) == korean(
        "thermal.dry_run.breaker", count=2, allowed=1, total=3
    ).replace("2번", "1번")
    assert "(s)" not in once + twice and ":plural" not in korean(
        "thermal.dry_run.breaker", count=1, allowed=1, total=3
    )


def test_a_label_and_a_service_message_come_from_the_one_catalog() -> None:
    t = Translator("en")
    assert t("metric_check.no_labels") == t.message("metric_check.no_labels")
    assert t.message("thermal.dry_run.breaker", {"count": 1, "allowed": 1, "total": 3}).startswith(
        "The circuit breaker"
    )
