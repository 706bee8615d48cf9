"""What applying a pack changes: the leaves of two documents that differ, by their dotted paths."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Action = Literal["created", "updated", "unchanged", "deleted"]


class Change(BaseModel):
    model_config = ConfigDict(frozen=True)

    # Dotted, from the document's top: `spec.alerts.hot.celsius`.
    path: str
    # The values at the path; null where the path has no value (a field left out, a new section).
    before: Any = None
    after: Any = None


class PackResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    action: Action
    changes: list[Change] = []


class ApplyOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    dry_run: bool
    results: list[PackResult]


def changes(before: Any, after: Any, path: str) -> list[Change]:
    """Each leaf where `before` and `after` differ. Mappings are compared key by key (in `after`'s
    order, then keys only `before` has); anything else, lists included, as a whole."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[Change] = []
        for key in [*after, *(k for k in before if k not in after)]:
            found += changes(before.get(key), after.get(key), f"{path}.{key}" if path else str(key))
        return found
    return [Change(path=path, before=before, after=after)]
