"""The one wire model of a message: what every API body, check result and stored reason carries."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from nufi.messages.catalog import Language, Message, render


class MessageModel(BaseModel):
    """A catalog `code` and the `params` its sentence names (docs/messages.md). A param may itself be
    a message (`{"code", "params"}`), and a list may hold messages."""

    code: str
    params: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, message: Message) -> MessageModel:
        return cls.model_validate(message.to_data())

    def message(self) -> Message:
        return Message.from_data(self.model_dump())

    def text(self, language: Language) -> str:
        return render(language, self.code, self.params)
