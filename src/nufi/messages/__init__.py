"""What NuFi tells a person, as data: a stable `code` and its `params`, rendered from one catalog
per language.

Services never hand a sentence to a face. A domain error (`nufi.errors`) and every check result
carry a code and the values it names; the API renders them in the language the caller asked for
(`Accept-Language`), the dashboard in the reader's. The catalogs live in `nufi.messages.ko` and
`nufi.messages.en`, one module per area; `docs/messages.md` lists every code.
"""

from nufi.messages.catalog import (
    AREAS,
    CATALOG,
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Language,
    Message,
    areas_of,
    fields_of,
    join_areas,
    preferred_language,
    render,
    render_sentence,
    title_of,
)
from nufi.messages.model import MessageModel

__all__ = [
    "AREAS",
    "CATALOG",
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "Language",
    "Message",
    "MessageModel",
    "areas_of",
    "fields_of",
    "join_areas",
    "preferred_language",
    "render",
    "render_sentence",
    "title_of",
]
