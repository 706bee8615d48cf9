"""A rule group checked as Prometheus loads it (`promtool check rules`), before NuFi writes it.

One rule Prometheus cannot load fails the reload of every rule file, and a Prometheus started on it
does not start. So each group is checked on its own before it is written: its name, and every rule's
alert name, `for:`, label names and values, annotation names, its PromQL and every label and
annotation as an alert template (`go_template`). A group that fails is not written, while the other
types' groups are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import promql_parser

from nufi.alerts.go_template import TemplateError, check_template
from nufi.alerts.rules import RuleGroup

# Prometheus' label name and metric (alert) name syntax.
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_ALERT_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_DURATION = re.compile(r"(?:[0-9]+(?:y|w|d|h|m|s|ms))+")


@dataclass(frozen=True)
class GroupRefusal:
    """Why one type's group is not written: the first fault found, in Prometheus' terms."""

    device_type: str
    reason: str


def refusal_of(group: RuleGroup) -> GroupRefusal | None:
    """Why Prometheus would refuse `group`, or None when it would load it."""
    reason = _fault(group.document)
    return None if reason is None else GroupRefusal(group.device_type, reason)


def screened(groups: Iterable[RuleGroup]) -> tuple[list[RuleGroup], list[GroupRefusal]]:
    """`groups` parted into those Prometheus would load and why each of the others would not be."""
    good: list[RuleGroup] = []
    refused: list[GroupRefusal] = []
    for group in groups:
        refusal = refusal_of(group)
        if refusal is None:
            good.append(group)
        else:
            refused.append(refusal)
    return good, refused


def _fault(document: Mapping[str, Any]) -> str | None:
    name = document.get("name")
    if not isinstance(name, str) or not name:
        return "the group has no name"
    rules = document.get("rules")
    if not isinstance(rules, Sequence) or isinstance(rules, str):
        return f"group {name}: rules are not a list"
    for number, rule in enumerate(rules):
        fault = _rule_fault(rule) if isinstance(rule, Mapping) else "not a mapping"
        if fault is not None:
            alert = rule.get("alert") if isinstance(rule, Mapping) else None
            return f"group {name}, rule {number} ({alert}): {fault}"
    return None


def _rule_fault(rule: Mapping[str, Any]) -> str | None:
    alert = rule.get("alert")
    if not isinstance(alert, str) or not _ALERT_NAME.fullmatch(alert):
        return f"invalid alert name {alert!r}"
    held = rule.get("for", "0s")
    if not isinstance(held, str) or not _DURATION.fullmatch(held):
        return f"invalid for: {held!r}"
    expression = rule.get("expr")
    if not isinstance(expression, str) or not expression.strip():
        return "the expression is empty"
    try:
        promql_parser.parse(expression)
    except ValueError as exc:
        return f"expr: {exc}"
    for kind in ("labels", "annotations"):
        fault = _templates_fault(kind, rule.get(kind) or {})
        if fault is not None:
            return fault
    return None


def _templates_fault(kind: str, entries: Any) -> str | None:
    if not isinstance(entries, Mapping):
        return f"{kind} are not a mapping"
    for key, value in entries.items():
        if not isinstance(key, str) or not _LABEL_NAME.fullmatch(key) or key.startswith("__"):
            return f"invalid {kind[:-1]} name {key!r}"
        if not isinstance(value, str):
            return f"{kind[:-1]} {key}: not text"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{kind[:-1]} {key}: not UTF-8"
        try:
            check_template(value)
        except TemplateError as exc:
            return f"{kind[:-1]} {key}: {exc}"
    return None
