"""Whether a text a person reads is in the language of the page: no English sentence on a Korean page,
no Korean on an English one.

Names, identifiers, numbers, units and technical tokens are Latin on a Korean page too (`hyperaccel.ai/lpu`,
`PromQL`, `lpu-node-1`, `Prometheus`), so a Korean page is held to having no English *sentence*: a run of
three or more English words with a function word among them ("is not", "no series", "the node").
"""

from __future__ import annotations

import re

from nufi.errors import NufiError

# Function words no name or identifier is made of, but every English sentence has.
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "not",
        "no",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "and",
        "or",
        "but",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "can",
        "cannot",
        "could",
        "must",
        "should",
        "will",
        "would",
        "yet",
        "than",
        "then",
        "there",
        "when",
        "which",
        "while",
        "what",
        "who",
        "please",
        "check",
        "enter",
    ]
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_RUN = 3


def english_sentences(text: str) -> list[str]:
    """Each run of at least three English words (only spaces and commas between them) holding a
    function word, for a Korean page."""
    found: list[str] = []
    for line in text.splitlines():
        run: list[str] = []
        end = 0
        for match in _WORD.finditer(line):
            gap = line[end : match.start()]
            if run and gap.strip(" ,") != "":
                found.extend(_sentence(run))
                run = []
            run.append(match.group())
            end = match.end()
        found.extend(_sentence(run))
    return found


def _sentence(run: list[str]) -> list[str]:
    if len(run) >= _RUN and any(word.lower() in FUNCTION_WORDS for word in run):
        return [" ".join(run)]
    return []


def korean_in(text: str) -> list[str]:
    """Each line with Hangul in it, for an English page."""
    return [line for line in text.splitlines() if HANGUL.search(line)]


def wrong_language(text: str, language: str) -> list[str]:
    return english_sentences(text) if language == "ko" else korean_in(text)


def korean_sentence(text: str) -> str:
    """`text`, failing unless it is Korean: Hangul in it and no English sentence."""
    assert HANGUL.search(text), text
    assert english_sentences(text) == [], text
    return text


def korean_of(error: NufiError) -> str:
    """What `error` tells a Korean reader, failing unless it is Korean and worded apart from the English."""
    text = korean_sentence(error.text("ko"))
    assert text != error.detail, text
    return text
