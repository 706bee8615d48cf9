"""A tiny PromQL evaluator for the NVIDIA preset's expressions, over hand-built series.

It knows what those expressions use — metric-name selectors, `label_replace`, `label_join`, `+` and
`or` between vectors with default (all-label) matching — with Prometheus' semantics: regexes are
fully anchored, a label set to the empty string is removed, `$1` names a group, binary operators and
set operators match on every label but the metric name, and a vector holding two series of one label
set is an error. Anything else raises, so a preset that grows past it fails loudly here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import promql_parser

Series = tuple[dict[str, str], float]
_GROUP = re.compile(r"\$(\d+)|\$\{(\d+)\}")


def evaluate(expression: str, series: Sequence[tuple[Mapping[str, str], float]]) -> list[Series]:
    """The instant vector `expression` gives over `series` (each with its `__name__`)."""
    stored = [(dict(labels), value) for labels, value in series]
    result = _eval(promql_parser.parse(expression), stored)
    signatures = [_signature(labels) for labels, _ in result]
    if len(set(signatures)) != len(signatures):
        raise ValueError("vector cannot contain metrics with the same labelset")
    return result


def _eval(node: promql_parser.Expr, series: list[Series]) -> list[Series]:
    if isinstance(node, promql_parser.ParenExpr):
        return _eval(node.expr, series)
    if isinstance(node, promql_parser.VectorSelector):
        if node.matchers.matchers:
            raise NotImplementedError(f"matchers in {node}")
        return [(dict(labels), value) for labels, value in series if labels.get("__name__") == node.name]
    if isinstance(node, promql_parser.Call):
        inner = _eval(node.args[0], series)
        strings = [_string(arg) for arg in node.args[1:]]
        if node.func.name == "label_replace":
            return [_replace(labels, value, *strings) for labels, value in inner]
        if node.func.name == "label_join":
            return [_join(labels, value, strings[0], strings[1], strings[2:]) for labels, value in inner]
        raise NotImplementedError(node.func.name)
    if isinstance(node, promql_parser.BinaryExpr):
        if node.modifier is not None and node.modifier.matching is not None:
            raise NotImplementedError(f"matching modifiers in {node}")
        lhs, rhs = _eval(node.lhs, series), _eval(node.rhs, series)
        operator = str(node.op)
        if operator == "+":
            right = {_signature(labels): value for labels, value in rhs}
            return [
                (_without_name(labels), value + right[_signature(labels)])
                for labels, value in lhs
                if _signature(labels) in right
            ]
        if operator == "or":
            seen = {_signature(labels) for labels, _ in lhs}
            return lhs + [(labels, value) for labels, value in rhs if _signature(labels) not in seen]
        raise NotImplementedError(operator)
    raise NotImplementedError(type(node).__name__)


def _string(node: object) -> str:
    if not isinstance(node, promql_parser.StringLiteral):
        raise NotImplementedError(f"{node} is not a string literal")
    return node.val


def _set(labels: dict[str, str], name: str, value: str) -> dict[str, str]:
    out = dict(labels)
    if value:
        out[name] = value
    else:
        out.pop(name, None)
    return out


def _replace(
    labels: dict[str, str], value: float, target: str, template: str, source: str, regex: str
) -> Series:
    match = re.fullmatch(regex, labels.get(source, ""))
    if match is None:
        return labels, value
    expanded = _GROUP.sub(lambda m: match.group(int(m.group(1) or m.group(2))) or "", template)
    return _set(labels, target, expanded), value


def _join(labels: dict[str, str], value: float, target: str, separator: str, sources: list[str]) -> Series:
    return _set(labels, target, separator.join(labels.get(name, "") for name in sources)), value


def _without_name(labels: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in labels.items() if name != "__name__"}


def _signature(labels: Mapping[str, str]) -> frozenset[tuple[str, str]]:
    return frozenset(_without_name(labels).items())
