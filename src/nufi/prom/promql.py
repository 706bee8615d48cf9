"""Building PromQL queries safely: label values never go into a query unescaped.

`quote_label_value` produces a double-quoted string literal, for `=`/`!=` matchers and label_replace
arguments alike; label names are checked against the syntax the expressions of a device type keep
(`nufi.models.promql`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from nufi.models.promql import LABEL_NAME

_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}

Aggregation = Literal["sum", "avg", "max", "min", "count"]
_AGGREGATIONS: frozenset[str] = frozenset({"sum", "avg", "max", "min", "count"})


def quote_label_value(value: str) -> str:
    """`value` as a double-quoted PromQL string literal, for `=` and `!=` matchers."""
    return '"' + "".join(_escape_char(char) for char in value) + '"'


def aggregate(operator: Aggregation, expression: str, by: Sequence[str]) -> str:
    """`operator by (labels) (expression)`, e.g. `max by (node, device) (x)`."""
    if operator not in _AGGREGATIONS:
        raise ValueError(f"`{operator}` is not one of the supported aggregations {sorted(_AGGREGATIONS)}")
    for name in by:
        _require_label_syntax(name)
    return f"{operator} by ({', '.join(by)}) ({expression})"


def copy_label(expression: str, target: str, source: str) -> str:
    """`expression` with label `target` set from label `source` on the series that carry `source`;
    series without it pass unchanged. Lets one expression serve exporters that renamed a label."""
    _require_label_syntax(target)
    _require_label_syntax(source)
    return (
        f'label_replace({expression}, {quote_label_value(target)}, "$1", {quote_label_value(source)}, "(.+)")'
    )


def _escape_char(char: str) -> str:
    escaped = _STRING_ESCAPES.get(char)
    if escaped is not None:
        return escaped
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return char


def _require_label_syntax(name: str) -> None:
    # Unlike a device type's label mapping, a query may name internal labels such as `__name__`.
    if LABEL_NAME.fullmatch(name) is None:
        # A programming error (the names are NuFi's own), never shown to a person.
        raise ValueError(f"`{name}` is not a Prometheus label name")
