"""The message catalogs, the languages NuFi speaks, and how a code and its params become a sentence.

Templates take `str.format` fields by name, plus two specs of our own, because a sentence has to
read right in each language:
- `{count:plural:node|nodes}` picks the singular or the plural word by the number (Korean has no
  plural and does not use it);
- `{problems:list}` joins a list; items that are messages themselves (`{"code", "params"}`) are
  rendered in the same language first.
A param that is itself a message is rendered in place too.

Every face words its texts with this one renderer: the dashboard's labels (`nufi.ui.locales`) are
areas joined onto these (`nufi.ui.i18n`), so a label's plural reads right as a message's does.
"""

from __future__ import annotations

import importlib
import pkgutil
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, get_args

from nufi.messages import en, ko

Language = Literal["ko", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
# Korean is the first language: NuFi's first users are Korean infrastructure teams.
DEFAULT_LANGUAGE: Language = "ko"

_LIST_SEPARATOR: dict[Language, str] = {"ko": ", ", "en": "; "}


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


def areas_of(package: ModuleType) -> dict[str, dict[str, str]]:
    """A language package's areas, by module name: each module in it that holds `TEXTS`. Found, not
    listed, so that an area is added by adding its module in every language."""
    areas: dict[str, dict[str, str]] = {}
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda found: found.name):
        texts = getattr(importlib.import_module(f"{package.__name__}.{module.name}"), "TEXTS", None)
        if texts is not None:
            areas[module.name] = texts
    return areas


Texts = Mapping[Language, Mapping[str, str]]
AREAS: dict[Language, dict[str, dict[str, str]]] = {"ko": areas_of(ko), "en": areas_of(en)}
CATALOG: dict[Language, dict[str, str]] = {language: join_areas(AREAS[language]) for language in LANGUAGES}


@dataclass(frozen=True)
class Message:
    """A code and the values its sentence names: what a check result or an error carries."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        """This message as JSON data, `{"code", "params"}`: the one serialiser of every face. A
        message among the params (alone, in a list or in a mapping) becomes such data too."""
        return {"code": self.code, "params": {str(key): _data(value) for key, value in self.params.items()}}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Message:
        """The message `to_data` gave; `{"code", "params"}` among the params become messages again."""
        params = data.get("params")
        return cls(str(data["code"]), {key: _typed(value) for key, value in (params or {}).items()})

    def text(self, language: Language) -> str:
        return render(language, self.code, self.params)


def _data(value: object) -> object:
    if isinstance(value, Message):
        return value.to_data()
    if isinstance(value, Mapping):
        return {str(key): _data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_data(item) for item in value]
    return value


def _typed(value: object) -> object:
    if isinstance(value, Mapping) and _as_message(value) is not None:
        return Message.from_data(value)
    if isinstance(value, Mapping):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return value


class _Formatter(string.Formatter):
    def __init__(self, language: Language, catalog: Texts) -> None:
        self.language = language
        self.catalog = catalog

    def format_field(self, value: Any, format_spec: str) -> str:
        kind, _, argument = format_spec.partition(":")
        if kind == "plural":
            one, _, many = argument.partition("|")
            return one if value == 1 else many
        if kind == "list":
            return _LIST_SEPARATOR[self.language].join(str(self._shown(item)) for item in value)
        return str(super().format_field(self._shown(value), format_spec))

    def _shown(self, value: object) -> object:
        nested = _as_message(value)
        return render(self.language, nested.code, nested.params, self.catalog) if nested else value


def _as_message(value: object) -> Message | None:
    if isinstance(value, Message):
        return value
    if isinstance(value, Mapping) and set(value) == {"code", "params"} and isinstance(value["code"], str):
        params = value["params"]
        return Message(value["code"], params if isinstance(params, Mapping) else {})
    return None


def render(
    language: Language, code: str, params: Mapping[str, object] | None = None, catalog: Texts = CATALOG
) -> str:
    """The sentence of `code` in `language` with `params` filled in; KeyError for a code the
    catalog does not have or a field `params` lacks (a test holds every raise site to the catalog).
    `catalog` is these messages unless a face joined its own areas onto them."""
    return _Formatter(language, catalog).vformat(catalog[language][code], (), dict(params or {}))


def render_sentence(
    language: Language, code: str, params: Mapping[str, object] | None = None, catalog: Texts = CATALOG
) -> str:
    """`render`, standing alone as a sentence: catalog texts begin in lower case (they are also parts
    of sentences), so a first letter of the text's own is raised; a value it begins with (a device
    type's id, say) is left as it is."""
    rendered = render(language, code, params, catalog)
    if catalog[language][code][:1] in ("", "{"):
        return rendered
    return rendered[:1].upper() + rendered[1:]


def fields_of(template: str) -> set[str]:
    """The names of the fields a template fills (`{node}`, `{count:plural:...}`)."""
    names: set[str] = set()
    for _, name, _, _ in string.Formatter().parse(template):
        if name:
            names.add(name.split(".", 1)[0].split("[", 1)[0])
    return names


def preferred_language(accept_language: str | None, default: Language = DEFAULT_LANGUAGE) -> Language:
    """The first of the caller's languages (RFC 9110 `Accept-Language`, by weight) NuFi speaks;
    `default` when it names none of them or cannot be read."""
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
        for language in LANGUAGES:
            if language == primary:
                return language
    return default


def missing_codes(languages: Iterable[Language] = LANGUAGES) -> dict[Language, set[str]]:
    """Per language, the codes another language has and it lacks."""
    every = set().union(*(CATALOG[language] for language in languages))
    return {language: every - set(CATALOG[language]) for language in languages}


def codes() -> Sequence[str]:
    return sorted(CATALOG[DEFAULT_LANGUAGE])


def title_of(language: Language, problem_type: str, fallback: str) -> str:
    """The headline of a problem type (`title.<type>` in the catalog), or `fallback` for a type the
    catalog does not name (an HTTP status NuFi never answers on purpose)."""
    return CATALOG[language].get(f"title.{problem_type}", fallback)
