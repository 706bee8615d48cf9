"""PromQL building blocks: label names, expression parsing, and building queries safely.

Label values never go into a query unescaped: `quote_label_value` produces a double-quoted string
literal, for `=`/`!=` matchers and label_replace arguments alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import promql_parser

_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}

Aggregation = Literal["sum", "avg", "max", "min", "count"]
_AGGREGATIONS: frozenset[str] = frozenset({"sum", "avg", "max", "min", "count"})


class ExpressionError(ValueError):
    """A PromQL expression promql-parser refused; `parser_message` is the parser's own words."""

    def __init__(self, expression: str, parser_message: str) -> None:
        super().__init__(f"cannot parse `{expression}`: {parser_message}")
        self.expression = expression
        self.parser_message = parser_message


def label_name_problem(name: str) -> str | None:
    """Why `name` cannot be a Prometheus label name of a device type, or None when it can."""
    if not name:
        return "the label name is empty: enter the label as it appears on the exporter's series"
    if _LABEL_NAME.fullmatch(name) is None:
        return (
            f"`{name}` is not a Prometheus label name: use letters, digits and `_`, not starting "
            "with a digit (e.g. `node`, `exported_pod`)"
        )
    if name.startswith("__"):
        return (
            f"`{name}` starts with `__`, which Prometheus reserves for internal labels that never "
            "reach stored series; use the label the exporter's series carry"
        )
    return None


def parse_expression(expression: str) -> promql_parser.Expr:
    """The syntax tree of `expression`; raises ExpressionError carrying the parser's message."""
    if not expression.strip():
        raise ExpressionError(expression, "the expression is empty")
    try:
        return promql_parser.parse(expression)
    except ValueError as exc:
        raise ExpressionError(expression, str(exc)) from None
    except UnicodeError:
        # The parser takes UTF-8; a lone surrogate cannot be encoded, let alone sent to Prometheus.
        raise ExpressionError(expression, "the expression contains characters that are not text") from None


def instant_vector_problem(expression: str) -> str | None:
    """Why `expression` cannot give one value per device at an instant, or None when it can.

    Only the outermost node is judged: a scalar, a string or a range vector there is certainly
    wrong, while anything else may still yield a vector and is judged by the query result.
    """
    tree = parse_expression(expression)
    if isinstance(tree, promql_parser.NumberLiteral | promql_parser.StringLiteral):
        return (
            f"`{expression}` is a constant, not a per-device series; select the exporter's metric, "
            "e.g. `lpu_utilization_percent`"
        )
    if isinstance(tree, promql_parser.MatrixSelector | promql_parser.SubqueryExpr):
        return (
            f"`{expression}` is a range vector; wrap it in a function that gives one value per series, "
            f"e.g. `avg_over_time({expression})`"
        )
    return None


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
    if _LABEL_NAME.fullmatch(name) is None:
        raise ValueError(label_name_problem(name) or f"`{name}` is not a Prometheus label name")
