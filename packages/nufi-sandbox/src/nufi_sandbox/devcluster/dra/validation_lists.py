"""How upstream's DRA validation walks lists and maps: a size limit first (a list past it is not
looked into, against abuse), then each entry, then duplicates by key (`validateSlice`, `validateSet`,
`validateMap` in `pkg/apis/resource/validation`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from nufi_sandbox.devcluster.validation.field_causes import Cause, as_list, as_map, duplicate, too_many

Check = Callable[[Any, str], list[Cause]]


def each(value: object, limit: int, path: str, check: Check) -> list[Cause]:
    """`validateSlice`: a list of at most `limit` entries (negative: no limit), each checked."""
    entries = as_list(value)
    if 0 <= limit < len(entries):
        return [too_many(path, len(entries), limit)]
    causes: list[Cause] = []
    for i, entry in enumerate(entries):
        causes += check(entry, f"{path}[{i}]")
    return causes


def each_unique(
    value: object, limit: int, path: str, check: Check, key: Callable[[Any], Hashable]
) -> list[Cause]:
    """`validateSet`: `each`, then a `Duplicate` for every entry whose key came before."""
    entries = as_list(value)
    causes = each(entries, limit, path, check)
    if 0 <= limit < len(entries):
        return causes
    seen: set[Hashable] = set()
    for i, entry in enumerate(entries):
        identity = key(entry)
        if identity in seen:
            causes.append(duplicate(f"{path}[{i}]", identity))
        seen.add(identity)
    return causes


def _shortened(key: str, limit: int) -> str:
    """A long key in a path keeps its two ends around `...`, as `truncateIfTooLong` does."""
    limit = max(limit, 16)
    if len(key) <= limit:
        return key
    remaining = limit - 3
    return key[: (remaining + 1) // 2] + "..." + key[len(key) - remaining // 2 :]


def each_entry(value: object, path: str, check_key: Check, check_value: Check, key_limit: int) -> list[Cause]:
    """`validateMap`: keys are reported on the map's path, values on `path[key]`."""
    causes: list[Cause] = []
    for key, entry in as_map(value).items():
        causes += check_key(str(key), path)
        causes += check_value(entry, f"{path}[{_shortened(str(key), key_limit)}]")
    return causes


def by_name(entry: object) -> str:
    name = as_map(entry).get("name")
    return name if isinstance(name, str) else ""


def itself(entry: object) -> Hashable:
    return entry if isinstance(entry, Hashable) else repr(entry)
