"""The sandbox's sign-in pages pick the browser's language from Accept-Language, and say the same
things in Korean and in English."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.idp.pages import TEXTS, language_of, message_page


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", "ko"),  # Chromium with locale ko-KR
        ("en-US,en;q=0.9", "en"),
        ("en-US,en;q=0.9,ko;q=0.8", "en"),
        ("fr-FR, ko;q=0.5, en;q=0.4", "ko"),
        ("en;q=0.5, KO;q=0.8", "ko"),
        ("ko;q=0, en;q=0.1", "en"),  # q=0: not acceptable
        ("ko;q=nope", "en"),
        ("ko;q=2", "en"),
        ("*", "en"),
        ("fr", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_the_browsers_language_is_read_from_accept_language(header: str | None, expected: str) -> None:
    assert language_of(header) == expected


_WEIGHTS = st.sampled_from(["", ";q=1", ";q=0.9", ";q=0.5", ";q=0.5", ";q=0.1", ";q=0"])
_ENTRY = st.tuples(st.sampled_from(["ko", "ko-KR", "en", "en-US", "fr", "de-DE", "*"]), _WEIGHTS)


@given(st.lists(_ENTRY, max_size=6))
def test_the_highest_ranked_language_the_pages_speak_wins_the_first_on_a_tie(
    entries: list[tuple[str, str]],
) -> None:
    header = ", ".join(tag + weight for tag, weight in entries)
    ranked = [
        (float(weight.removeprefix(";q=") or 1), -index, tag.split("-")[0])
        for index, (tag, weight) in enumerate(entries)
        if tag.split("-")[0] in ("ko", "en") and float(weight.removeprefix(";q=") or 1) > 0
    ]
    assert language_of(header) == (max(ranked)[2] if ranked else "en")


@given(st.text(alphabet=string.printable + "한국어", max_size=80))
def test_any_header_gives_a_language(header: str) -> None:
    assert language_of(header) in TEXTS


def _holes(sentence: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(sentence) if name is not None}


def test_both_languages_say_every_sentence_with_the_same_holes() -> None:
    assert TEXTS["ko"].keys() == TEXTS["en"].keys()
    for key, english in TEXTS["en"].items():
        assert _holes(TEXTS["ko"][key]) == _holes(english), key
        assert TEXTS["ko"][key] != english, key


def test_a_message_page_is_in_its_language() -> None:
    korean = message_page("ko", "logout.title", "logout.body", 200)
    assert (
        "<html lang='ko'>" in bytes(korean.body).decode()
        and "세션이 종료되었습니다." in bytes(korean.body).decode()
    )
    refused = message_page("en", "error.title", "error.client", 400)
    assert refused.status_code == 400 and b"kc-error-message" in refused.body
