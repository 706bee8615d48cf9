"""Label names, expression parsing and its bounds, ranges, and value quoting, checked against promql-parser
itself."""

from __future__ import annotations

import time
import uuid

import promql_parser
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nufi.messages import Message
from nufi.models.promql import (
    MAX_EXPRESSION_CHARS,
    MAX_EXPRESSION_DEPTH,
    ExpressionError,
    ExpressionTooLarge,
    expression_size_problem,
    instant_vector_problem,
    label_name_problem,
    nesting_depth,
    parse_expression,
    range_problem,
)
from nufi.prom.promql import aggregate, copy_label, quote_label_value

label_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,20}", fullmatch=True).filter(
    lambda n: not n.startswith("__")
)


def english(problem: Message | None) -> str | None:
    return None if problem is None else problem.text("en")


def matcher_of(expression: str) -> promql_parser.Matcher:
    tree = promql_parser.parse(expression)
    assert isinstance(tree, promql_parser.VectorSelector)
    (matcher,) = tree.matchers.matchers
    return matcher


@pytest.mark.parametrize("name", ["node", "device", "exported_pod", "Hostname", "_x", "gpu0"])
def test_usual_label_names_are_valid(name: str) -> None:
    assert label_name_problem(name) is None
    assert label_name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("", "empty"),
        ("0node", "not a Prometheus label name"),
        ("node-name", "not a Prometheus label name"),
        ("kubernetes.io/hostname", "not a Prometheus label name"),
        ("nöde", "not a Prometheus label name"),
        ("__name__", "reserves"),
        ("__meta_kubernetes_pod_name", "reserves"),
    ],
)
def test_bad_label_names_are_refused_with_the_name(name: str, words: str) -> None:
    problem = english(label_name_problem(name))
    assert problem is not None and words in problem
    if name:
        assert f"'{name}'" in problem


@given(label_names)
def test_generated_label_names_are_accepted_by_prometheus_syntax(name: str) -> None:
    assert label_name_problem(name) is None
    assert matcher_of(f'm{{{name}="v"}}').name == name


def test_parse_errors_carry_the_parsers_message() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse_expression("sum(lpu_utilization_percent")
    try:
        promql_parser.parse("sum(lpu_utilization_percent")
    except ValueError as exc:
        parser_says = str(exc)
    assert caught.value.parser_message == parser_says
    assert parser_says in str(caught.value)
    assert "'sum(lpu_utilization_percent'" in str(caught.value)


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_expression_is_an_error(text: str) -> None:
    with pytest.raises(ExpressionError, match="empty"):
        parse_expression(text)


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("42", "constant"),
        ('"lpu"', "constant"),
        ("lpu_temp[5m]", "range vector"),
        ("lpu_temp[5m:1m]", "range"),
    ],
)
def test_expressions_that_cannot_give_a_vector_are_named(expression: str, words: str) -> None:
    problem = english(instant_vector_problem(expression))
    assert problem is not None and words in problem and expression in problem


@pytest.mark.parametrize("expression", ["lpu_temp", "max by (node) (lpu_temp)", "a or b", "100 * x"])
def test_vector_expressions_pass(expression: str) -> None:
    assert instant_vector_problem(expression) is None


@given(st.text(max_size=30))
def test_quoted_values_round_trip_through_the_parser(value: str) -> None:
    assert matcher_of(f"m{{l={quote_label_value(value)}}}").value == value


def test_escaping_examples() -> None:
    assert quote_label_value('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'


def test_aggregate_keeps_the_labels() -> None:
    built = aggregate("max", "lpu_temp", ["node", "device"])
    assert built == "max by (node, device) (lpu_temp)"
    tree = promql_parser.parse(built)
    assert isinstance(tree, promql_parser.AggregateExpr)
    assert tree.modifier is not None and tree.modifier.labels == ["node", "device"]
    with pytest.raises(ValueError):
        aggregate("max", "x", ["bad label"])


def test_copy_label_is_a_label_replace_that_parses() -> None:
    built = copy_label("DCGM_FI_DEV_GPU_UTIL", "hostname", "Hostname")
    tree = promql_parser.parse(built)
    assert isinstance(tree, promql_parser.Call)
    assert tree.func.name == "label_replace"


# -- bounds before the parser --------------------------------------------------------------------------

PLUS_ZERO_16K = "lpu_utilization_percent" + "+0" * 8000
UP_1M = "up" + "+up" * 350_000


@pytest.fixture
def parser_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text handed to promql-parser while the test runs."""
    calls: list[str] = []
    parse = promql_parser.parse

    def counting(expression: str) -> promql_parser.Expr:
        calls.append(expression)
        return parse(expression)

    monkeypatch.setattr(promql_parser, "parse", counting)
    return calls


def tree_depth(tree: promql_parser.Expr) -> int:
    """The depth of promql-parser's tree, counting every node it walks."""
    depth = deepest = 0

    def enter(node: promql_parser.Expr) -> bool:
        nonlocal depth, deepest
        depth += 1
        deepest = max(deepest, depth)
        return True

    def leave(node: promql_parser.Expr) -> bool:
        nonlocal depth
        depth -= 1
        return True

    promql_parser.walk(tree, enter, leave)
    return deepest


@pytest.mark.parametrize(
    ("expression", "bound", "words"),
    [
        (PLUS_ZERO_16K, "length", f"limit of {MAX_EXPRESSION_CHARS} characters"),
        (UP_1M, "length", f"limit of {MAX_EXPRESSION_CHARS} characters"),
        ("lpu_utilization_percent" + "+0" * 2000, "depth", f"limit of {MAX_EXPRESSION_DEPTH} levels"),
        ("up" + "+up" * 1300, "depth", f"limit of {MAX_EXPRESSION_DEPTH} levels"),
        ("(" * 100 + "up" + ")" * 100, "depth", f"limit of {MAX_EXPRESSION_DEPTH} levels"),
        ("abs(" * 70 + "up" + ")" * 70, "depth", f"limit of {MAX_EXPRESSION_DEPTH} levels"),
    ],
)
def test_oversized_expressions_are_refused_quickly_without_the_parser(
    expression: str, bound: str, words: str, parser_calls: list[str]
) -> None:
    started = time.perf_counter()
    with pytest.raises(ExpressionTooLarge) as caught:
        parse_expression(expression)
    assert time.perf_counter() - started < 0.5
    assert caught.value.bound == bound and words in str(caught.value)
    assert english(expression_size_problem(expression)) == str(caught.value)
    with pytest.raises(ExpressionTooLarge):
        instant_vector_problem(expression)
    assert parser_calls == []
    # Messages quote the expression, never a megabyte of it.
    assert len(str(caught.value)) < 400


def test_depth_at_the_bound_is_accepted_and_one_more_is_not() -> None:
    at_bound = "lpu_utilization_percent" + "+0" * (MAX_EXPRESSION_DEPTH - 1)
    assert nesting_depth(at_bound) == MAX_EXPRESSION_DEPTH
    assert expression_size_problem(at_bound) is None
    assert instant_vector_problem(at_bound) is None
    with pytest.raises(ExpressionTooLarge, match="levels deep"):
        parse_expression(at_bound + "+0")


def test_the_length_bound_is_inclusive() -> None:
    longest = 'm{l="' + "x" * (MAX_EXPRESSION_CHARS - 7) + '"}'
    assert len(longest) == MAX_EXPRESSION_CHARS
    assert instant_vector_problem(longest) is None
    with pytest.raises(ExpressionTooLarge, match="characters"):
        parse_expression(longest + " ")


@pytest.mark.parametrize(
    "expression",
    [
        'label_replace(up, "x", "' + "(+)" * 300 + '", "job", "(.*)")',
        "up{job=~'" + "a+b|" * 300 + "'}",
        "up{job=~`" + "(a)+" * 100 + "`}",
        "up # " + "+(" * 300 + "\nor up",
    ],
)
def test_strings_and_comments_do_not_count_towards_the_depth(expression: str) -> None:
    assert nesting_depth(expression) < 10
    parse_expression(expression)


_LEAVES = st.sampled_from(
    ["m", 'm{a="x+(y)"}', "rate(m[5m])", "m offset 5m", "-m", "m @ 100", "last_over_time(m[1m])"]
)


def _nest(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    operator = st.sampled_from(["+", "-", "*", "/", "%", "^", "and", "or", "unless", "> bool", "=="])
    return st.one_of(
        st.tuples(children, operator, children).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(children, st.sampled_from(["+", "*", "/"])).map(lambda t: f"{t[0]} {t[1]} 2"),
        children.map(lambda e: f"({e})"),
        children.map(lambda e: f"-{e}"),
        children.map(lambda e: f"abs({e})"),
        children.map(lambda e: f"sum by (node) ({e})"),
        children.map(lambda e: f"topk(3, {e})"),
        children.map(lambda e: f"max_over_time(({e})[5m:1m])"),
        children.map(lambda e: f'label_replace({e}, "x", "$1", "y", "(.*)")'),
        st.tuples(children, children).map(lambda t: f"{t[0]} and on (node) {t[1]}"),
    )


@settings(max_examples=40)
@given(st.recursive(_LEAVES, _nest, max_leaves=40))
def test_the_depth_scan_never_under_counts_the_parsers_tree(expression: str) -> None:
    try:
        tree = promql_parser.parse(expression)
    except ValueError:
        assume(False)
        raise
    assert nesting_depth(expression) >= tree_depth(tree)


@given(st.integers(min_value=1, max_value=200), st.sampled_from(["+0", " * 2", " or up", " and up"]))
def test_chains_count_one_level_per_operator(length: int, link: str) -> None:
    expression = "up" + link * length
    assert nesting_depth(expression) == 1 + length


def test_each_expression_is_parsed_once(parser_calls: list[str]) -> None:
    expression = f"max by (node) (lpu_cache_test_{uuid.uuid4().hex})"
    first = parse_expression(expression)
    assert parse_expression(expression) is first
    assert instant_vector_problem(expression) is None
    assert parser_calls == [expression]
    broken = f"sum(lpu_cache_test_{uuid.uuid4().hex}"
    for _ in range(3):
        with pytest.raises(ExpressionError):
            parse_expression(broken)
    assert parser_calls == [expression, broken]


# -- ranges an admin's expression may ask for -----------------------------------------------------------


def ranges(expression: str) -> str | None:
    return english(range_problem(expression, max_range_seconds=3600, min_step_seconds=1))


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("max_over_time(lpu_utilization_percent[30d:1ms])", "a subquery over 30d, longer than the 1h"),
        ("max_over_time(lpu_utilization_percent[30m:1ms])", "subquery step of 1ms, finer than the 1s"),
        ("rate(x[2h])", "a range selector over 2h, longer than the 1h"),
        ("up + on (job) sum by (job) (rate(x[1h1s]))", "range selector over 1h1s"),
        ("max_over_time((rate(x[5m]))[2h:1m])", "subquery over 2h"),
        ("avg_over_time(max_over_time(x[10m:500ms])[30m:])", "step of 500ms"),
    ],
)
def test_costly_ranges_are_named_with_the_bound(expression: str, words: str) -> None:
    problem = ranges(expression)
    assert problem is not None and words in problem and f"'{expression}'" in problem
    assert "NUFI_PROMQL_" in problem


@pytest.mark.parametrize(
    "expression",
    [
        "lpu_utilization_percent",
        "rate(x[1h])",
        "max_over_time(x[1h:1s])",
        "max_over_time(x[30m:])",
        "x offset 30d",
        "max_over_time(x[5m] offset 30d)",
    ],
)
def test_ranges_within_the_bounds_pass(expression: str) -> None:
    assert ranges(expression) is None
