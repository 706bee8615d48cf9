"""Which fields of a recorded state the audit page has no label for."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from nufi.devices.audit import leaf_changes
from nufi.ui.parts.audit_lines import FIELDS, PER_TYPE


def unworded(state: dict[str, Any] | None) -> set[str]:
    """The fields of `state` without an `audit.field.*` label (a per-type map's keys are type ids,
    shown by the type's name)."""
    return {key for change in leaf_changes(None, state) for key in _keys(change.path)} - set(FIELDS)


def _keys(path: tuple[str, ...]) -> Iterator[str]:
    for index, key in enumerate(path):
        if not (index and path[index - 1] in PER_TYPE):
            yield key
