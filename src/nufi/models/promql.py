"""The PromQL a device type may hold: label names and expressions, parsed within fixed bounds.

No expression reaches the parser unbounded: promql-parser is native code that recurses on nesting
(thousands of levels overflow its stack and kill the process) and slows down sharply on long chains,
so `expression_size_problem` checks the length and, with one linear scan of the text, the nesting
depth first. Each distinct expression is parsed once: device types are revisioned, so a stored
expression's text is its identity, and re-validating a type costs a cache lookup.
"""

from __future__ import annotations

import re
from datetime import timedelta
from functools import lru_cache
from typing import Literal

import promql_parser

from nufi.messages import Message

LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")

# The bounds every expression must keep before any parser sees it. Fixed rather than settings: a
# stored device type that passed them once must keep validating whatever a replica is configured with.
MAX_EXPRESSION_CHARS = 4096
MAX_EXPRESSION_DEPTH = 64
# Distinct expressions whose parse outcome is kept (each at most MAX_EXPRESSION_CHARS long).
_PARSE_CACHE_SIZE = 1024

# What the depth scan counts as one level: every operator token (binary or unary), every `[` (a range
# selector or subquery is a node of its own), and the deepest nesting of brackets.
_OPERATOR_CHARS = frozenset("+-*/%^")
_COMPARISON_CHARS = frozenset("=!<>")
_OPERATOR_WORDS = frozenset({"and", "or", "unless", "atan2"})
_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")
_QUOTES = frozenset("\"'`")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_:]*")


class ExpressionError(ValueError):
    """A PromQL expression promql-parser refused; `parser_message` is the parser's own words and
    `problem` the message that says so (`promql.syntax` quoting them, or a code of NuFi's own)."""

    def __init__(self, expression: str, parser_message: str, problem: Message | None = None) -> None:
        self.expression = expression
        self.parser_message = parser_message
        self.problem = problem or Message(
            "promql.syntax", {"expression": _shown(expression), "reason": parser_message}
        )
        super().__init__(self.problem.text("en"))


class ExpressionTooLarge(ExpressionError):
    """An expression longer or deeper than NuFi parses; `bound` is `length` or `depth`."""

    def __init__(self, expression: str, bound: Literal["length", "depth"], problem: Message) -> None:
        super().__init__(expression, problem.text("en"), problem)
        self.bound = bound


def label_name_problem(name: str) -> Message | None:
    """Why `name` cannot be a Prometheus label name of a device type, or None when it can."""
    if not name:
        return Message("promql.label.empty")
    if LABEL_NAME.fullmatch(name) is None:
        return Message("promql.label.syntax", {"name": name})
    if name.startswith("__"):
        return Message("promql.label.reserved", {"name": name})
    return None


def nesting_depth(expression: str) -> int:
    """An upper bound on the depth of the syntax tree of `expression`, from one pass over the text.

    One level for the leaf, one per operator token (binary or unary: `+ - * / % ^`, comparisons,
    `and`, `or`, `unless`, `atan2`), one per `[` (range selector or subquery), plus the deepest
    nesting of `(`, `[` and `{`. String literals and comments are skipped; label matchers inside `{}`
    are not operators. Over-counting is harmless (the bound is generous), under-counting is not.
    """
    operators = 0
    open_brackets = 0
    deepest = 0
    in_braces = 0
    index = 0
    length = len(expression)
    while index < length:
        char = expression[index]
        if char in _QUOTES:
            index = _after_string(expression, index)
            continue
        if char == "#":
            newline = expression.find("\n", index)
            index = length if newline < 0 else newline + 1
            continue
        if char in _OPENING:
            open_brackets += 1
            deepest = max(deepest, open_brackets)
            if char == "[":
                operators += 1
            elif char == "{":
                in_braces += 1
        elif char in _CLOSING:
            open_brackets = max(open_brackets - 1, 0)
            if char == "}":
                in_braces = max(in_braces - 1, 0)
        elif in_braces == 0:
            if char in _OPERATOR_CHARS:
                operators += 1
            elif char in _COMPARISON_CHARS:
                operators += 1
                if index + 1 < length and expression[index + 1] == "=":
                    index += 1
            elif char.isalpha() or char == "_":
                word = _WORD.match(expression, index)
                if word is not None:
                    if word.group(0).lower() in _OPERATOR_WORDS:
                        operators += 1
                    index = word.end()
                    continue
        index += 1
    return 1 + operators + deepest


def expression_size_problem(expression: str) -> Message | None:
    """Why `expression` is too long or too deeply nested to parse, or None when it is within bounds."""
    refusal = _size_refusal(expression)
    return None if refusal is None else refusal.problem


def parse_expression(expression: str) -> promql_parser.Expr:
    """The syntax tree of `expression`; raises ExpressionTooLarge beyond the bounds, and ExpressionError
    carrying the parser's message when it does not parse. Each distinct expression is parsed once."""
    if not expression.strip():
        raise ExpressionError(expression, "the expression is empty", Message("promql.empty"))
    refusal = _size_refusal(expression)
    if refusal is not None:
        raise refusal
    outcome = _parsed(expression)
    if outcome is None:
        raise ExpressionError(expression, "not text", Message("promql.not_text"))
    if isinstance(outcome, str):
        raise ExpressionError(expression, outcome)
    return outcome


def range_problem(expression: str, *, max_range_seconds: float, min_step_seconds: float) -> Message | None:
    """Why the ranges in `expression` would cost Prometheus too much, or None: a range selector or
    subquery over more than `max_range_seconds`, or a subquery step finer than `min_step_seconds`.

    Raises ExpressionError when the expression does not parse."""
    tree = parse_expression(expression)
    widest = timedelta(seconds=max_range_seconds)
    finest = timedelta(seconds=min_step_seconds)
    found: list[Message] = []
    shown = _shown(expression)

    def visit(node: promql_parser.Expr) -> bool:
        if isinstance(node, promql_parser.MatrixSelector | promql_parser.SubqueryExpr):
            if node.range is not None and node.range > widest:
                params = {"expression": shown, "range": _duration(node.range), "limit": _duration(widest)}
                if isinstance(node, promql_parser.MatrixSelector):
                    found.append(Message("promql.range_too_wide", params))
                else:
                    found.append(Message("promql.subquery_too_wide", params))
                return False
            step = getattr(node, "step", None)
            if isinstance(step, timedelta) and step < finest:
                found.append(
                    Message(
                        "promql.step_too_fine",
                        {"expression": shown, "step": _duration(step), "limit": _duration(finest)},
                    )
                )
                return False
        return True

    promql_parser.walk(tree, pre_visit=visit)
    return found[0] if found else None


def instant_vector_problem(expression: str) -> Message | None:
    """Why `expression` cannot give one value per device at an instant, or None when it can.

    Only the outermost node is judged: a scalar, a string or a range vector there is certainly
    wrong, while anything else may still yield a vector and is judged by the query result.
    """
    tree = parse_expression(expression)
    if isinstance(tree, promql_parser.NumberLiteral | promql_parser.StringLiteral):
        return Message("promql.constant", {"expression": expression})
    if isinstance(tree, promql_parser.MatrixSelector | promql_parser.SubqueryExpr):
        return Message("promql.range_vector", {"expression": expression})
    if _is_scalar(tree):
        # Decided here, not from the answer: VictoriaMetrics answers `time()` or `scalar(x)` with a
        # vector where Prometheus answers a scalar.
        return Message("metric_check.not_vector", {"query": expression, "result_type": "scalar"})
    return None


def _is_scalar(node: promql_parser.Expr) -> bool:
    """Whether `node` is a scalar by PromQL's types: a number, a scalar function, or arithmetic and
    parentheses over those alone."""
    if isinstance(node, promql_parser.NumberLiteral):
        return True
    if isinstance(node, promql_parser.Call):
        return str(node.func.return_type).rsplit(".", 1)[-1] == "Scalar"
    if isinstance(node, promql_parser.ParenExpr | promql_parser.UnaryExpr):
        return _is_scalar(node.expr)
    if isinstance(node, promql_parser.BinaryExpr):
        return _is_scalar(node.lhs) and _is_scalar(node.rhs)
    return False


def _size_refusal(expression: str) -> ExpressionTooLarge | None:
    # The length first: a megabyte is refused without being scanned.
    if len(expression) > MAX_EXPRESSION_CHARS:
        return ExpressionTooLarge(
            expression,
            "length",
            Message("promql.too_long", {"length": len(expression), "limit": MAX_EXPRESSION_CHARS}),
        )
    depth = _depth(expression)
    if depth > MAX_EXPRESSION_DEPTH:
        return ExpressionTooLarge(
            expression, "depth", Message("promql.too_deep", {"depth": depth, "limit": MAX_EXPRESSION_DEPTH})
        )
    return None


@lru_cache(maxsize=_PARSE_CACHE_SIZE)
def _depth(expression: str) -> int:
    return nesting_depth(expression)


@lru_cache(maxsize=_PARSE_CACHE_SIZE)
def _parsed(expression: str) -> promql_parser.Expr | str | None:
    """The tree, the parser's message, or None for text that is not text; only ever called within
    the size bounds."""
    try:
        return promql_parser.parse(expression)
    except ValueError as exc:
        return str(exc)
    except UnicodeError:
        # The parser takes UTF-8; a lone surrogate cannot be encoded, let alone sent to Prometheus.
        return None


def _after_string(expression: str, start: int) -> int:
    """The index just past the string literal opening at `start` (the end of the text if unclosed)."""
    quote = expression[start]
    index = start + 1
    length = len(expression)
    while index < length:
        char = expression[index]
        if char == "\\" and quote != "`":
            index += 2
            continue
        if char == quote:
            return index + 1
        index += 1
    return length


def _duration(value: timedelta) -> str:
    return str(promql_parser.display_duration(value))


def _shown(expression: str, limit: int = 200) -> str:
    # Messages quote the expression, but never a whole oversized one.
    return expression if len(expression) <= limit else expression[: limit - 3] + "..."
