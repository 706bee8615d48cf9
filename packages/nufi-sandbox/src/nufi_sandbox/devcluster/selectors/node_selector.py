"""Node selectors (`v1.NodeSelector`): terms ORed, each term's requirements ANDed over a node's labels
and its `metadata.name` field, as the scheduler's node affinity and DRA's slices and allocations use them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Obj = dict[str, Any]


def _requirement_matches(requirement: Mapping[str, Any], values: Mapping[str, str]) -> bool:
    key = requirement.get("key", "")
    operator = requirement.get("operator", "")
    wanted = [str(v) for v in requirement.get("values") or []]
    present = key in values
    actual = values.get(key, "")
    if operator == "In":
        return present and actual in wanted
    if operator == "NotIn":
        return not present or actual not in wanted
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(wanted) == 1:
        try:
            number, bound = int(actual), int(wanted[0])
        except ValueError:
            return False
        return number > bound if operator == "Gt" else number < bound
    return False


def _term_matches(term: Mapping[str, Any], labels: Mapping[str, str], fields: Mapping[str, str]) -> bool:
    expressions = term.get("matchExpressions") or []
    field_terms = term.get("matchFields") or []
    if not expressions and not field_terms:
        return False
    return all(_requirement_matches(r, labels) for r in expressions) and all(
        _requirement_matches(r, fields) for r in field_terms
    )


def matches_node_selector(selector: Mapping[str, Any], node: Obj) -> bool:
    """A v1 NodeSelector (terms ORed), as a ResourceSlice or an allocation carries one."""
    labels = node.get("metadata", {}).get("labels") or {}
    fields = {"metadata.name": str(node["metadata"]["name"])}
    return any(_term_matches(term, labels, fields) for term in selector.get("nodeSelectorTerms") or [])
