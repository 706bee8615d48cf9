"""A message as a check result carries it: the code and params of `nufi.messages`, as JSON data.

Check results keep their English sentences (`message`, `error`, `warnings`) for API callers that
read them; beside each sits the same thing as a `Said`, which the dashboard words in its reader's
language and an API caller may word in its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from nufi.errors import NufiError
from nufi.messages import Language, Message, render


class Said(BaseModel):
    """A catalog `code` and the `params` its sentence names (`docs/messages.md`)."""

    code: str
    params: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, message: Message) -> Said:
        return cls(code=message.code, params=plain(message.params))

    def text(self, language: Language) -> str:
        return render(language, self.code, self.params)

    def message(self) -> Message:
        return Message(self.code, self.params)


def plain(params: Mapping[str, object]) -> dict[str, Any]:
    """`params` with every nested Message as a `{code, params}` dict, so it travels as JSON."""
    return {key: _plain_value(value) for key, value in params.items()}


def _plain_value(value: object) -> object:
    if isinstance(value, Message):
        return {"code": value.code, "params": plain(value.params)}
    if isinstance(value, Mapping):
        return {str(key): _plain_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_value(item) for item in value]
    return value


def said_of_error(exc: NufiError) -> Message:
    """What a domain error says, as a message."""
    return Message(exc.code, plain(exc.params))
