"""Every text the dashboard shows, in Korean and in English, from one catalog.

Korean is the first language (NuFi's first users are Korean infrastructure teams); English stands
beside it. The texts live in `nufi.ui.locales`, one module per language and area; this module joins
them. A key missing in either language, used by no page, or used by a page and missing here is a
failing test (`tests/unit/ui`), never a blank label. Texts take `str.format` fields by name (`{node}`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nufi.messages import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Language,
    join_areas,
    preferred_language,
    render,
    render_sentence,
)
from nufi.ui.locales import en, ko

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Language", "join_areas", "preferred_language"]
LANGUAGE_NAMES: dict[Language, str] = {"ko": "한국어", "en": "English"}


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

    def message(self, code: str, params: Mapping[str, object] | None = None) -> str:
        """What a service said (a check result, a reason, an error): its code from the message
        catalogs of `nufi.messages`, in this language."""
        return render(self.language, code, params)

    def sentence(self, code: str, params: Mapping[str, object] | None = None) -> str:
        """`message` standing alone as a sentence (its own first letter raised)."""
        return render_sentence(self.language, code, params)


def missing_keys(languages: Iterable[Language] = LANGUAGES) -> dict[Language, set[str]]:
    """Per language, the keys another language has and it lacks."""
    every = set().union(*(CATALOG[language] for language in languages))
    return {language: every - set(CATALOG[language]) for language in languages}
