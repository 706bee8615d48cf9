"""Error text as the Go kubelet prints it, so callers can match on the real messages."""

from __future__ import annotations

from typing import Any

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}

# Go's codes.Code names differ from Python's in spelling (Canceled) and case.
_CODE_NAMES = {"OK": "OK", "CANCELLED": "Canceled"}


def go_quote(value: str) -> str:
    """Go's ``%q`` of a string."""
    out = []
    for char in value:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def go_quote_list(values: tuple[str, ...] | list[str]) -> str:
    """Go's ``%q`` of a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(go_quote(value) for value in values) + "]"


def go_status_text(error: Any) -> str:
    """A gRPC error as grpc-go's ``status.Error(...).Error()`` renders it."""
    code_name = str(error.code().name)
    go_name = _CODE_NAMES.get(code_name) or "".join(word.capitalize() for word in code_name.split("_"))
    return f"rpc error: code = {go_name} desc = {error.details()}"
