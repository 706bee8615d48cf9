"""The operator's language (the POSIX locale variables), the CLI's sentences in it, and times on the
operator's clock."""

from __future__ import annotations

import os
import time
from datetime import datetime

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


def local_time(instant: str | None) -> str | None:
    """An API instant (ISO 8601, UTC) on this machine's clock, honouring TZ, for a person to read;
    scripts keep the API's own instants in `-o json/yaml`."""
    if not instant:
        return None
    try:
        moment = datetime.fromisoformat(instant)
    except ValueError:
        return instant
    # TZ is read again, so a zone the process was given after it started is the one shown.
    time.tzset()
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
