"""A rejected device-type document as a list of field errors, each naming the field at fault.

The API, the registration wizard and the catalog report validation the same way: the dotted path of
the field (`metrics.memory.total`) and a message that says how to fix its value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from nufi.messages import Message
from nufi.messages.validation import validation_message


@dataclass(frozen=True)
class FieldError:
    """One rejected input: `field` is a dotted path such as `metrics.memory.total`; `message` is in
    English, `said` the same as a catalog message for a face to word in its reader's language."""

    field: str
    message: str
    said: Message


def field_errors(error: ValidationError) -> list[FieldError]:
    """The errors of a rejected document, each with the dotted path of the field at fault."""
    return [
        FieldError(_dotted(item["loc"]), _message(item), validation_message(item)) for item in error.errors()
    ]


def _dotted(loc: Sequence[int | str]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def _message(item: Any) -> str:
    kind = item["type"]
    if kind == "missing":
        return "this field is required"
    if kind == "extra_forbidden":
        return "this field is not part of a device type; remove it (check its spelling)"
    return validation_message(item).text("en")
