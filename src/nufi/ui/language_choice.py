"""The language a dashboard visitor reads: the one they chose (remembered in a cookie), else the browser's."""

from __future__ import annotations

from starlette.requests import Request

from nufi.ui.i18n import LANGUAGES, Language, preferred_language

LANGUAGE_COOKIE = "nufi_language"


def language_of(request: Request) -> Language:
    """The language the person chose (remembered in a cookie), else the browser's."""
    chosen = request.cookies.get(LANGUAGE_COOKIE)
    for language in LANGUAGES:
        if chosen == language:
            return language
    return preferred_language(request.headers.get("accept-language"))
