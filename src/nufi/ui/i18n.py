"""Every text the dashboard shows, in Korean and in English, from one catalog and one renderer.

Korean is the first language (NuFi's first users are Korean infrastructure teams); English stands
beside it. The dashboard's own labels live in `nufi.ui.locales`, one module per language and area;
this module joins them onto the areas of `nufi.messages` (what the services say), so a label and a
service's message are keys of the same catalog, worded by the same renderer with its plural and list
specs (`{count:plural:time|times}`). A key missing in either language, used by no page, or used by a
page and missing here is a failing test (`tests/unit/ui`), never a blank label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nufi.messages import (
    AREAS,
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Language,
    areas_of,
    join_areas,
    preferred_language,
    render,
    render_sentence,
)
from nufi.ui.locales import en, ko

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Language", "join_areas", "preferred_language"]
LANGUAGE_NAMES: dict[Language, str] = {"ko": "한국어", "en": "English"}

# The dashboard's own areas; a test holds the code that uses them to these keys.
DASHBOARD_AREAS: dict[Language, dict[str, dict[str, str]]] = {"ko": areas_of(ko), "en": areas_of(en)}


def _joined(language: Language) -> dict[str, str]:
    # Area names repeat between the two (`thermal`), their keys may not.
    services = {f"messages.{area}": texts for area, texts in AREAS[language].items()}
    dashboard = {f"dashboard.{area}": texts for area, texts in DASHBOARD_AREAS[language].items()}
    return join_areas({**services, **dashboard})


CATALOG: dict[Language, dict[str, str]] = {language: _joined(language) for language in LANGUAGES}


def text(language: Language, key: str, **fields: object) -> str:
    """The text of `key` in `language`; KeyError for a key the catalog does not have."""
    return render(language, key, fields, CATALOG)


@dataclass(frozen=True)
class Translator:
    """The texts of one language: what every page builder receives, called as `t("key", field=...)`."""

    language: Language

    def __call__(self, key: str, **fields: object) -> str:
        return text(self.language, key, **fields)

    def message(self, code: str, params: Mapping[str, object] | None = None) -> str:
        """What a service said (a check result, a reason, an error): its code and params, in this
        language."""
        return render(self.language, code, params, CATALOG)

    def sentence(self, code: str, params: Mapping[str, object] | None = None) -> str:
        """`message` standing alone as a sentence (its own first letter raised)."""
        return render_sentence(self.language, code, params, CATALOG)


def missing_keys(languages: Iterable[Language] = LANGUAGES) -> dict[Language, set[str]]:
    """Per language, the keys another language has and it lacks."""
    every = set().union(*(CATALOG[language] for language in languages))
    return {language: every - set(CATALOG[language]) for language in languages}
