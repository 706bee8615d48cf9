"""A project's members, as NuFi keeps them in an annotation of the project's namespace: a JSON list of
usernames, sorted."""

from __future__ import annotations

import json
from collections.abc import Sequence


def decode_members(text: object) -> tuple[str, ...]:
    # An annotation edited by hand into something else grants nobody anything.
    if not isinstance(text, str):
        return ()
    try:
        value = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(value, list):
        return ()
    return tuple(sorted({member for member in value if isinstance(member, str) and member}))


def encode_members(members: Sequence[str]) -> str:
    return json.dumps(sorted(members))
