"""How old the data behind an expression really is, asked of the engine itself.

An instant query's answer is stamped with the time it was asked for, whatever the age of the samples
it read: Prometheus looks back up to 5 minutes, and VictoriaMetrics by default hides the newest 30 s
(`-search.latencyOffset`) yet labels its answer "now". `timestamp()` of a plain series selector gives
the time of the sample actually read, on every engine, so `max(timestamp(<selector>))` is when the
newest sample of that series was taken, as the engine sees it at the query time.
"""

from __future__ import annotations

import promql_parser

from nufi.models.promql import ExpressionError, parse_expression
from nufi.prom.promql import quote_label_value

_OPERATORS = {"Equal": "=", "NotEqual": "!=", "Re": "=~", "NotRe": "!~"}


def newest_sample_query(expression: str) -> str | None:
    """`max(timestamp(S))` for the first series selector S of `expression` read at the query time (no
    `offset`, no `@`), or None when it has none (or does not parse)."""
    try:
        tree = parse_expression(expression)
    except ExpressionError:
        return None
    found: list[str] = []

    def visit(node: promql_parser.Expr) -> bool:
        if found:
            return False
        if isinstance(node, promql_parser.VectorSelector):
            selector = _selector(node)
            if selector is not None:
                found.append(selector)
                return False  # stops the walk: the first one will do
        return True

    promql_parser.walk(tree, pre_visit=visit)
    return f"max(timestamp({found[0]}))" if found else None


def _selector(node: promql_parser.VectorSelector) -> str | None:
    """The selector written out again, its values quoted by NuFi; None when it reads another time
    than the query's or uses `or` between matcher sets."""
    if node.offset is not None or node.at is not None or node.matchers.or_matchers:
        return None
    matchers = []
    for matcher in node.matchers.matchers:
        operator = _OPERATORS.get(str(matcher.op).rsplit(".", 1)[-1])
        if operator is None:
            return None
        matchers.append(f"{matcher.name}{operator}{quote_label_value(matcher.value)}")
    return f"{node.name or ''}{{{','.join(matchers)}}}"
