"""The points a subquery makes, as the engines count them against their per-series limit.

A subquery `E[R:S]` in a range query from `start` to `end` is evaluated at every step S from
`start - R` to `end`: about (end - start + R) / S points per series, whatever the outer step. VictoriaMetrics
refuses a query beyond `-search.maxPointsPerTimeseries` (30,000 by default) with a 422, so an
expression accepted on a short check could fail on the 24 h chart or the dry run. Counting over the
longest range NuFi asks keeps every accepted expression answerable.
"""

from __future__ import annotations

import math

import promql_parser

from nufi.messages import Message
from nufi.models.promql import parse_expression

# VictoriaMetrics aligns the range to the steps and starts a step or two of the outer query earlier
# than asked: [1h:3s] over exactly 24 h made 30,103 points, not 30,000. A twentieth of the span covers
# that for any outer step NuFi uses over a day (at most 720 s, the dashboard's 120 points).
_ALIGNMENT_SHARE = 0.05


def subquery_points_problem(expression: str, *, span_seconds: float, max_points: int) -> Message | None:
    """Why a subquery of `expression` would make more than `max_points` points per series over a range
    query of `span_seconds`, or None. Raises ExpressionError when the expression does not parse."""
    tree = parse_expression(expression)
    found: list[Message] = []

    def visit(node: promql_parser.Expr) -> bool:
        if found or not isinstance(node, promql_parser.SubqueryExpr):
            return True
        step = node.step.total_seconds() if node.step is not None else None
        if not step:
            # Without a step the engine uses its evaluation interval or the query's step: not ours to
            # count, and never finer than the checks on steps already allow.
            return True
        window = node.range.total_seconds() if node.range is not None else 0.0
        points = math.ceil((span_seconds * (1 + _ALIGNMENT_SHARE) + window) / step)
        if points > max_points:
            found.append(
                Message(
                    "metrics_backend.subquery_points",
                    {
                        "expression": expression if len(expression) <= 200 else expression[:199] + "…",
                        "points": points,
                        "limit": max_points,
                        "span_hours": span_seconds / 3600,
                        "step_seconds": step,
                    },
                )
            )
            return False
        return True

    promql_parser.walk(tree, pre_visit=visit)
    return found[0] if found else None
