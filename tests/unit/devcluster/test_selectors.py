"""Label and field selectors parse, reject and match like the real API server's."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.selectors import (
    EVERYTHING,
    FieldRequirement,
    Operator,
    SelectorError,
    label_selector_from_map,
    label_selector_from_object,
    parse_field_selector,
    parse_label_selector,
)
from nufi_sandbox.devcluster.validation.names import qualified_name_errors

LABELS = {"app": "web", "env": "dev", "tier": "", "replicas": "3"}


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("", True),
        ("app=web", True),
        ("app==web", True),
        ("app!=web", False),
        ("app!=api", True),
        ("missing!=x", True),
        ("env in (dev,prod)", True),
        ("env in (prod)", False),
        ("env notin (prod)", True),
        ("missing notin (a)", True),
        ("missing in (a)", False),
        ("app", True),
        ("missing", False),
        ("!missing", True),
        ("!app", False),
        ("tier=", True),
        ("tier in ()", True),
        ("app=web,env=prod", False),
        ("  app = web ,\tenv in ( dev , prod )  ", True),
        ("replicas>2", True),
        ("replicas<3", False),
        ("app>1", False),
        ("in=x", False),
        ("example.com/role=web", False),
    ],
)
def test_label_selector_matches(text: str, matches: bool) -> None:
    assert parse_label_selector(text).matches(LABELS) is matches


def test_keywords_are_allowed_as_keys_and_values() -> None:
    selector = parse_label_selector("in in (notin)")
    assert selector.matches({"in": "notin"})
    assert not selector.matches({"in": "x"})


def test_requirements_are_sorted_and_values_deduplicated_in_canonical_text() -> None:
    assert str(parse_label_selector("zone in (b,a,b), app")) == "app,zone in (a,b)"
    assert str(parse_label_selector("!b,a==1,c>2")) == "a==1,!b,c>2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (",a", "found ',', expected: !, identifier, or 'end of string'"),
        ("a,", "found '', expected: identifier after ','"),
        ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a=b=c", "found '=', expected: ',' or 'end of string'"),
        ("a in b", "unable to parse requirement: found 'b' expected: '('"),
        ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
        ("!a=b", "found '=', expected: ',' or 'end of string'"),
        ("x>y", "unable to parse requirement: values[0]: Invalid value: \"y\": for 'Gt', 'Lt' operators"),
    ],
)
def test_syntax_errors_use_the_api_server_wording(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_label_selector(text)
    assert str(caught.value).startswith(message)


def test_invalid_key_and_value_messages() -> None:
    with pytest.raises(SelectorError) as caught:
        parse_label_selector("a/b/c=x")
    assert str(caught.value).startswith('unable to parse requirement: <nil>: Invalid value: "a/b/c": ')
    with pytest.raises(SelectorError) as caught:
        parse_label_selector("app=-bad")
    assert str(caught.value).startswith(
        'unable to parse requirement: values[0][app]: Invalid value: "-bad": a valid label must be an '
        "empty string or consist of alphanumeric characters"
    )


def test_structured_selector() -> None:
    selector = label_selector_from_object(
        {
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["dev", "prod"]},
                {"key": "canary", "operator": "DoesNotExist"},
                {"key": "tier", "operator": "Exists"},
                {"key": "zone", "operator": "NotIn", "values": ["b"]},
            ],
        }
    )
    assert selector.matches(LABELS)
    assert not selector.matches({**LABELS, "canary": "1"})
    assert not selector.matches({**LABELS, "env": "qa"})
    assert not selector.matches({"app": "web", "env": "dev"})
    assert str(selector) == "app=web,!canary,env in (dev,prod),tier,zone notin (b)"


def test_missing_structured_selector_selects_nothing_and_empty_selects_everything() -> None:
    assert not label_selector_from_object(None).matches({})
    assert label_selector_from_object({}).matches({})
    assert label_selector_from_object({}) == EVERYTHING
    assert label_selector_from_map({"app": "web"}).matches(LABELS)
    assert not label_selector_from_map({"app": "api"}).matches(LABELS)
    assert label_selector_from_map({}).matches({})


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
            "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
            'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "Gt"}]},
            '"Gt" is not a valid label selector operator',
        ),
        ({"matchLabels": {"bad key": "x"}}, 'key: Invalid value: "bad key": name part must consist'),
    ],
)
def test_structured_selector_errors(selector: dict[str, object], message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        label_selector_from_object(selector)
    assert str(caught.value).startswith(message)


# --- property: generated selectors parse and match exactly like a reference model -------------

KEYS = ["app", "env", "example.com/tier", "in"]
VALUES = ["a", "b", "c-1", "X.y"]
label_sets = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=4)
requirement_models = st.tuples(
    st.sampled_from(KEYS),
    st.sampled_from(["=", "==", "!=", "in", "notin", "exists", "!"]),
    st.lists(st.sampled_from(VALUES), min_size=1, max_size=3),
)
spaces = st.sampled_from(["", " ", "  ", "\t"])


def render(model: tuple[str, str, list[str]], pad: str) -> str:
    key, op, values = model
    if op == "exists":
        return key
    if op == "!":
        return f"!{pad}{key}"
    if op in ("in", "notin"):
        return f"{key} {op}{pad}({pad}{(pad + ',' + pad).join(values)}{pad})"
    return f"{key}{pad}{op}{pad}{values[0]}"


def reference(model: tuple[str, str, list[str]], labels: Mapping[str, str]) -> bool:
    key, op, values = model
    if op == "exists":
        return key in labels
    if op == "!":
        return key not in labels
    if op in ("=", "=="):
        return labels.get(key) == values[0]
    if op == "!=":
        return labels.get(key) != values[0]
    if op == "in":
        return key in labels and labels[key] in values
    return labels.get(key) not in values


@given(st.lists(requirement_models, max_size=4), st.lists(label_sets, min_size=1, max_size=5), spaces)
def test_generated_selector_matches_exactly_the_model(
    models: list[tuple[str, str, list[str]]], label_cases: list[dict[str, str]], pad: str
) -> None:
    text = ("," + pad).join(render(model, pad) for model in models)
    selector = parse_label_selector(text)
    for labels in label_cases:
        assert selector.matches(labels) is all(reference(model, labels) for model in models)
    assert parse_label_selector(str(selector)) == selector


@given(st.text(alphabet="ab=!(), in", max_size=16))
def test_arbitrary_text_parses_or_raises_selector_error(text: str) -> None:
    try:
        selector = parse_label_selector(text)
    except SelectorError:
        return
    assert parse_label_selector(str(selector)) == selector


@given(
    st.from_regex(
        r"([a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?\.){0,2}[a-z]{1,5}/[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?",
        fullmatch=True,
    )
)
def test_prefixed_qualified_names_are_accepted(name: str) -> None:
    assert qualified_name_errors(name) == []
    assert parse_label_selector(f"{name}=v").requirements[0].key == name


# --- field selectors --------------------------------------------------------------------------

POD = {
    "metadata": {"name": "web-0", "namespace": "default"},
    "spec": {"nodeName": "node-1", "hostNetwork": False},
    "status": {"phase": "Running"},
}
POD_FIELDS = ["spec.nodeName", "status.phase", "spec.hostNetwork", "status.podIP"]


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("metadata.name=web-0", True),
        ("metadata.name==web-0", True),
        ("metadata.name!=web-0", False),
        ("metadata.namespace=default,spec.nodeName=node-1", True),
        ("spec.nodeName=node-2", False),
        ("status.podIP=", True),
        ("status.podIP!=", False),
        ("spec.hostNetwork=false", True),
        ("status.phase!=Pending,status.phase!=Failed", True),
    ],
)
def test_field_selector_matches(text: str, matches: bool) -> None:
    assert parse_field_selector(text, POD_FIELDS).matches(POD) is matches


def test_unsupported_field_uses_the_real_message() -> None:
    with pytest.raises(SelectorError) as caught:
        parse_field_selector("spec.containers=x", POD_FIELDS)
    assert str(caught.value) == "field label not supported: spec.containers"
    # Field selectors are not whitespace tolerant on a real server either.
    with pytest.raises(SelectorError) as caught:
        parse_field_selector("metadata.name =x", POD_FIELDS)
    assert str(caught.value) == "field label not supported: metadata.name "


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
        ("metadata.name=a=b", "invalid field selector: unescaped character in value: 61"),
        ("metadata.name=a\\q", "invalid field selector: invalid escape sequence: \\q"),
        ("metadata.name=a\\", "invalid field selector: invalid escape sequence: \\"),
    ],
)
def test_field_selector_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_field_selector(text, [])
    assert str(caught.value) == message


def test_escaped_commas_stay_in_the_value() -> None:
    selector = parse_field_selector("metadata.name=a\\,b\\=c", [])
    assert selector.requirements == (FieldRequirement("metadata.name", "a,b=c"),)
    assert selector.matches({"metadata": {"name": "a,b=c"}})


@given(st.text(max_size=12), st.booleans())
def test_field_requirement_text_round_trips(value: str, negated: bool) -> None:
    requirement = FieldRequirement("metadata.name", value, negated)
    assert parse_field_selector(str(requirement), []).requirements == (requirement,)


def test_operator_enum_covers_the_api_operators() -> None:
    assert {op.value for op in Operator} == {"in", "notin", "=", "==", "!=", "exists", "!", "gt", "lt"}
