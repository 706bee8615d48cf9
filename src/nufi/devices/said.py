"""What a domain error says, as a message of the catalogs (a face words it; `to_data` carries it)."""

from __future__ import annotations

from nufi.errors import NufiError
from nufi.messages import Message


def said_of_error(exc: NufiError) -> Message:
    """What a domain error says, as a message."""
    return Message(exc.code, exc.params)
