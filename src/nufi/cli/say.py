"""The operator's language (the POSIX locale variables) and the CLI's sentences in it."""

from __future__ import annotations

import os

from nufi.messages import Language, render

# POSIX precedence: LC_ALL overrides LC_MESSAGES, which overrides LANG.
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def language() -> Language:
    """Korean when the locale names Korean (LANG=ko_KR.UTF-8), English otherwise."""
    for name in _LOCALE_VARIABLES:
        value = os.environ.get(name, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    return "en"


def accept_language() -> str:
    """What the API is told, so that its problems come back in the operator's language."""
    return "ko, en;q=0.5" if language() == "ko" else "en"


def say(message: str, /, **params: object) -> str:
    return render(language(), message, params)
