"""Every text the dashboard shows, in Korean and in English, from one catalog.

Korean is the first language (NuFi's first users are Korean infrastructure teams); English stands
beside it. The texts live in `nufi.ui.locales`, one module per language and area; this module joins
them. A key missing in either language, used by no page, or used by a page and missing here is a
failing test (`tests/unit/ui`), never a blank label. Texts take `str.format` fields by name (`{node}`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from nufi.ui.locales import en, ko

Language = Literal["ko", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
DEFAULT_LANGUAGE: Language = "ko"
LANGUAGE_NAMES: dict[Language, str] = {"ko": "한국어", "en": "English"}


def join_areas(areas: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """One language's catalog from its areas' texts; ValueError for a key two areas define, since
    the later one would silently replace the earlier."""
    catalog: dict[str, str] = {}
    defined_in: dict[str, str] = {}
    for area, texts in areas.items():
        for key, template in texts.items():
            if key in defined_in:
                raise ValueError(f"{key!r} is defined in both {defined_in[key]!r} and {area!r}")
            defined_in[key] = area
            catalog[key] = template
    return catalog


CATALOG: dict[Language, dict[str, str]] = {"ko": join_areas(ko.AREAS), "en": join_areas(en.AREAS)}


def text(language: Language, key: str, **fields: object) -> str:
    """The text of `key` in `language`; KeyError for a key the catalog does not have."""
    template = CATALOG[language][key]
    return template.format(**fields) if fields else template


@dataclass(frozen=True)
class Translator:
    """The texts of one language: what every page builder receives, called as `t("key", field=...)`."""

    language: Language

    def __call__(self, key: str, **fields: object) -> str:
        return text(self.language, key, **fields)


def preferred_language(accept_language: str | None) -> Language:
    """The first of the browser's languages (RFC 9110 `Accept-Language`, by weight) NuFi speaks;
    Korean when it names none of them or cannot be read."""
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if tag:
            ranked.append((-weight, position, tag.strip().lower()))
    for weight, _, tag in sorted(ranked):
        if weight >= 0:
            continue
        primary = tag.split("-", 1)[0]
        if primary in LANGUAGES:
            return _language(primary)
    return DEFAULT_LANGUAGE


def _language(value: str) -> Language:
    for language in LANGUAGES:
        if language == value:
            return language
    raise ValueError(value)


def missing_keys(languages: Iterable[Language] = LANGUAGES) -> dict[Language, set[str]]:
    """Per language, the keys another language has and it lacks."""
    every = set().union(*(CATALOG[language] for language in languages))
    return {language: every - set(CATALOG[language]) for language in languages}
