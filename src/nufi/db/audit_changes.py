"""What an audit record changed, leaf by leaf: the one place that decides whether a save changed anything."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass


class Absent(enum.Enum):
    """A side of a change that had no value there (the field was added or removed)."""

    VALUE = "absent"


ABSENT = Absent.VALUE
# What a writer keeps beside the state it records (where the state came from, its revision counter):
# never a change a person made, so a save that moves only these changed nothing.
BOOKKEEPING = frozenset({"source", "revision"})


@dataclass(frozen=True)
class LeafChange:
    """One leaf that differs: its path of keys from the top, and its value before and after."""

    path: tuple[str, ...]
    before: object = ABSENT
    after: object = ABSENT


def leaf_changes(before: Mapping[str, object] | None, after: Mapping[str, object] | None) -> list[LeafChange]:
    """Every leaf that differs between the two states, nested objects flattened into their leaves and
    sorted by path; a missing state counts as empty, so a creation lists every leaf it made."""
    found: list[LeafChange] = []
    old = {k: v for k, v in (before or {}).items() if k not in BOOKKEEPING}
    new = {k: v for k, v in (after or {}).items() if k not in BOOKKEEPING}
    _walk((), old, new, found)
    return found


def _walk(path: tuple[str, ...], was: object, now: object, found: list[LeafChange]) -> None:
    was, now = _opened(was), _opened(now)
    if _nested(was) and _nested(now) and not (was is ABSENT and now is ABSENT):
        old = was if isinstance(was, Mapping) else {}
        new = now if isinstance(now, Mapping) else {}
        for key in sorted(set(old) | set(new), key=str):
            _walk((*path, str(key)), old.get(key, ABSENT), new.get(key, ABSENT), found)
    elif was != now:
        found.append(LeafChange(path, was, now))


def _opened(value: object) -> object:
    """A string holding a JSON object (a deployment's override, kept as its annotation's text) as that
    object, so its fields are what changed; any other value as it is."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return value


def _nested(value: object) -> bool:
    return value is ABSENT or isinstance(value, Mapping)
