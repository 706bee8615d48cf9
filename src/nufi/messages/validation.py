"""A pydantic validation error as a message: the same code whether the API or a dashboard form met it.

Our own validators raise `PydanticCustomError` with a catalog code as its type; pydantic's own
error types are `request.<type>` in the catalogs; a type the catalogs do not word (a validator that
raised a plain ValueError, which none of ours does) is `request.other`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.messages.catalog import CATALOG, DEFAULT_LANGUAGE, Message


def validation_message(error: Mapping[str, Any]) -> Message:
    kind = str(error.get("type") or "")
    context = error.get("ctx") or {}
    # Lists and mappings stay data: a validator's params may hold messages of their own (`{code, params}`).
    params: dict[str, object] = {
        key: value if isinstance(value, int | float | str | list | dict) else str(value)
        for key, value in context.items()
    }
    for code in (kind, f"request.{kind}"):
        if code in CATALOG[DEFAULT_LANGUAGE]:
            return Message(code, params)
    return Message("request.other", params)
