"""Label names, expression parsing and value quoting, checked against promql-parser itself."""

from __future__ import annotations

import promql_parser
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.prom.promql import (
    ExpressionError,
    aggregate,
    copy_label,
    instant_vector_problem,
    label_name_problem,
    parse_expression,
    quote_label_value,
)

label_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,20}", fullmatch=True).filter(
    lambda n: not n.startswith("__")
)


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
    problem = label_name_problem(name)
    assert problem is not None and words in problem
    if name:
        assert f"`{name}`" in problem


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
    assert "`sum(lpu_utilization_percent`" in str(caught.value)


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
    problem = instant_vector_problem(expression)
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
