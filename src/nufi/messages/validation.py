"""A pydantic validation error as a message: the same code whether the API or a dashboard form met it.

Our own validators raise `PydanticCustomError` with a catalog code as its type; pydantic's own
error types are `request.<type>` in the catalogs; a type the catalogs do not word (a validator that
raised a plain ValueError, which none of ours does) is `request.other`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import PydanticCustomError

from nufi.messages.catalog import CATALOG, DEFAULT_LANGUAGE, Message


def refusal(message: Message) -> PydanticCustomError:
    """What our validators raise: the catalog code as the error's type and the params as data (a
    message among them as `{code, params}`), so every face words it from the catalog
    (`validation_message`); the English sentence is pydantic's own `msg`."""
    return PydanticCustomError(message.code, message.text("en"), message.to_data()["params"])


def validation_message(error: Mapping[str, Any]) -> Message:
    kind = str(error.get("type") or "")
    context = error.get("ctx") or {}
    # Lists and mappings stay data: a validator's params may hold messages of their own (`{code, params}`).
    # A message itself becomes such data too, never its repr.
    params: dict[str, object] = {key: _param(value) for key, value in context.items()}
    for code in (kind, f"request.{kind}"):
        if code in CATALOG[DEFAULT_LANGUAGE]:
            return Message(code, params)
    return Message("request.other", params)


def _param(value: object) -> object:
    if isinstance(value, Message):
        return value.to_data()
    return value if isinstance(value, int | float | str | list | dict) else str(value)
