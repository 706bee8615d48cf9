"""Device-type documents hold expressions to the parser's bounds before parsing, parse each text once,
take revisions as strict bounded integers, and state the rules of their fields in the JSON Schema."""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import promql_parser
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from nufi.devices.presets import official_presets
from nufi.devices.spec import (
    FETCHER_PATTERN,
    LABEL_NAME_PATTERN,
    RESOURCE_KEY_MAX,
    RESOURCE_KEY_PATTERN,
    REVISION_MAX,
    SLUG_PATTERN,
    DeviceType,
    DeviceTypeCreate,
    DeviceTypeUpdate,
    MetricsDraft,
    is_fetcher_name,
)
from nufi.devices.validation_errors import field_errors
from nufi.models.promql import MAX_EXPRESSION_CHARS, MAX_EXPRESSION_DEPTH, label_name_problem
from nufi.models.resource_keys import is_valid_resource_key
from support.lpu_type import LPU_METRICS, lpu_type

PLUS_ZERO_16K = "lpu_utilization_percent" + "+0" * 8000
UP_1M = "up" + "+up" * 350_000
TOO_DEEP = "lpu_utilization_percent" + "+0" * 1000


def body(**changes: Any) -> dict[str, Any]:
    return lpu_type(**changes)


def errors_of(model: type[BaseModel], document: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(document)
    return {error.field: error.message for error in field_errors(caught.value)}


@pytest.fixture
def parser_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    parse = promql_parser.parse

    def counting(expression: str) -> promql_parser.Expr:
        calls.append(expression)
        return parse(expression)

    monkeypatch.setattr(promql_parser, "parse", counting)
    return calls


# -- expression bounds ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        (PLUS_ZERO_16K, f"limit of {MAX_EXPRESSION_CHARS} characters"),
        (UP_1M, f"limit of {MAX_EXPRESSION_CHARS} characters"),
        (TOO_DEEP, f"limit of {MAX_EXPRESSION_DEPTH} levels"),
    ],
)
@pytest.mark.parametrize("model", [DeviceTypeCreate, MetricsDraft])
def test_oversized_utilization_is_refused_quickly_naming_the_field_and_bound(
    expression: str, words: str, model: type[BaseModel], parser_calls: list[str]
) -> None:
    metrics = {**LPU_METRICS, "utilization": expression}
    document = body(metrics=metrics) if model is DeviceTypeCreate else metrics
    field = "metrics.utilization" if model is DeviceTypeCreate else "utilization"
    started = time.perf_counter()
    errors = errors_of(model, document)
    assert time.perf_counter() - started < 0.5
    assert words in errors[field]
    assert expression not in parser_calls


@pytest.mark.parametrize("model", [DeviceTypeCreate, MetricsDraft])
def test_an_oversized_health_expression_is_refused_before_any_parse(
    model: type[BaseModel], parser_calls: list[str]
) -> None:
    metrics = {**LPU_METRICS, "health": TOO_DEEP}
    document = body(metrics=metrics) if model is DeviceTypeCreate else metrics
    field = "metrics.health" if model is DeviceTypeCreate else "health"
    assert f"limit of {MAX_EXPRESSION_DEPTH} levels" in errors_of(model, document)[field]
    assert TOO_DEEP not in parser_calls


@pytest.mark.parametrize("where", ["used", "total"])
def test_oversized_memory_expressions_name_their_field(where: str, parser_calls: list[str]) -> None:
    memory = {**LPU_METRICS["memory"], where: TOO_DEEP}
    errors = errors_of(DeviceTypeCreate, body(metrics={**LPU_METRICS, "memory": memory}))
    assert f"limit of {MAX_EXPRESSION_DEPTH} levels" in errors[f"metrics.memory.{where}"]
    draft_errors = errors_of(MetricsDraft, {**LPU_METRICS, "memory": memory})
    assert f"limit of {MAX_EXPRESSION_DEPTH} levels" in draft_errors[f"memory.{where}"]
    assert TOO_DEEP not in parser_calls


def test_an_expression_just_under_the_depth_bound_is_saved() -> None:
    deep = "lpu_utilization_percent" + "+0" * (MAX_EXPRESSION_DEPTH - 1)
    device_type = DeviceTypeCreate.model_validate(body(metrics={**LPU_METRICS, "utilization": deep}))
    assert device_type.metrics.utilization == deep


def test_official_presets_are_well_within_the_bounds() -> None:
    for preset in official_presets():
        DeviceType.model_validate(preset.model_dump(mode="json"))


def test_validating_the_same_type_again_does_not_parse_again(parser_calls: list[str]) -> None:
    tag = uuid.uuid4().hex
    metrics: dict[str, Any] = {
        "utilization": f"avg by (node, device) (util_{tag})",
        "memory": {"mode": "used_free", "used": f"used_{tag}", "free": f"free_{tag}", "unit": "MiB"},
        "temperature": f"temp_{tag}",
        "power": None,
    }
    stored = {**body(metrics=metrics), "kind": "custom", "revision": 4}
    DeviceType.model_validate(stored)
    first = list(parser_calls)
    assert sorted(first) == sorted([metrics["utilization"], f"used_{tag}", f"free_{tag}", f"temp_{tag}"])
    DeviceType.model_validate(stored)
    DeviceTypeCreate.model_validate(body(metrics=metrics))
    assert parser_calls == first


# -- revisions -----------------------------------------------------------------------------------------


def update_body(revision: object) -> dict[str, Any]:
    document = body(revision=revision)
    del document["id"]
    return document


@pytest.mark.parametrize("revision", ["1", 1.0, True, 0, -1, REVISION_MAX + 1, 2**63, 2**64])
def test_a_revision_is_a_strict_bounded_integer(revision: object) -> None:
    assert "revision" in errors_of(DeviceTypeUpdate, update_body(revision))


@pytest.mark.parametrize("revision", [1, 2, REVISION_MAX])
def test_revisions_in_range_are_taken(revision: int) -> None:
    assert DeviceTypeUpdate.model_validate(update_body(revision)).revision == revision


@pytest.mark.parametrize("text", ['"1"', "1.0", "true", str(2**63)])
def test_a_json_revision_is_strict_too(text: str) -> None:
    raw = json.dumps(update_body("REV")).replace('"REV"', text)
    with pytest.raises(ValidationError) as caught:
        DeviceTypeUpdate.model_validate_json(raw)
    assert [error.field for error in field_errors(caught.value)] == ["revision"]
    assert DeviceTypeUpdate.model_validate_json(json.dumps(update_body(7))).revision == 7


# -- the JSON Schema states the rules ------------------------------------------------------------------


def _property(schema: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = schema["properties"][name]
    return found


def test_the_schema_carries_the_constraints() -> None:
    schema = DeviceTypeCreate.model_json_schema()
    defs = schema["$defs"]
    assert _property(schema, "id")["pattern"] == SLUG_PATTERN
    assert _property(schema, "id")["maxLength"] == 63
    for text in ("name", "vendor"):
        assert (_property(schema, text)["minLength"], _property(schema, text)["maxLength"]) == (1, 100)
    assert _property(schema, "resource_key")["pattern"] == RESOURCE_KEY_PATTERN
    assert _property(schema, "resource_key")["maxLength"] == RESOURCE_KEY_MAX
    assert _property(schema, "fetcher")["pattern"] == FETCHER_PATTERN
    assert _property(defs["Labels"], "node")["pattern"] == LABEL_NAME_PATTERN
    assert _property(defs["Labels"], "pod")["anyOf"][0]["pattern"] == LABEL_NAME_PATTERN
    assert _property(defs["Metrics"], "utilization")["maxLength"] == MAX_EXPRESSION_CHARS
    assert _property(defs["Metrics"], "health")["anyOf"][0]["maxLength"] == MAX_EXPRESSION_CHARS
    assert _property(defs["Memory"], "used")["maxLength"] == MAX_EXPRESSION_CHARS
    assert _property(defs["Memory"], "mode")["enum"] == ["used_total", "used_free"]
    assert "GiB" in defs["MemoryUnit"]["enum"]
    update = DeviceTypeUpdate.model_json_schema()
    revision = _property(update, "revision")
    assert (revision["type"], revision["minimum"], revision["maximum"]) == ("integer", 1, REVISION_MAX)
    served = DeviceType.model_json_schema()
    assert _property(served, "kind")["enum"] == ["official", "custom"]


def matches(pattern: str, text: str) -> bool:
    """JSON Schema's reading of an anchored pattern (Python's `$` would also match before a final newline)."""
    return re.fullmatch(pattern.removeprefix("^").removesuffix("$"), text) is not None


@given(st.one_of(st.text(max_size=12), st.from_regex(r"_{0,3}[a-zA-Z0-9_]{0,10}", fullmatch=True)))
def test_the_label_name_pattern_is_the_validators_rule(name: str) -> None:
    assert matches(LABEL_NAME_PATTERN, name) == (label_name_problem(name) is None)


@given(st.one_of(st.text(max_size=70), st.from_regex(r"[a-z0-9._-]{0,70}", fullmatch=True)))
def test_the_id_and_fetcher_patterns_are_the_validators_rules(name: str) -> None:
    # The documents strip surrounding whitespace first; the schema describes what remains.
    slug_ok = matches(SLUG_PATTERN, name.strip()) and len(name.strip()) <= 63
    assert slug_ok == ("id" not in errors_or_none(body(id=name)))
    fetcher_ok = matches(FETCHER_PATTERN, name) and len(name) <= 63
    assert fetcher_ok == is_fetcher_name(name)


def errors_or_none(document: dict[str, Any]) -> dict[str, str]:
    try:
        DeviceTypeCreate.model_validate(document)
    except ValidationError as exc:
        return {error.field: error.message for error in field_errors(exc)}
    return {}


@given(
    st.one_of(
        st.text(max_size=30),
        st.from_regex(r"[a-z0-9.-]{0,20}/[A-Za-z0-9._-]{0,20}", fullmatch=True),
        st.from_regex(r"(requests\.)?[a-z]{1,8}\.(io|ai|com)/[a-z]{1,8}", fullmatch=True),
    )
)
def test_every_valid_resource_key_matches_its_pattern(key: str) -> None:
    # The pattern is the syntax; the reserved domain and the quota prefix are the validator's alone.
    if is_valid_resource_key(key):
        assert matches(RESOURCE_KEY_PATTERN, key) and len(key) <= RESOURCE_KEY_MAX
    if not matches(RESOURCE_KEY_PATTERN, key):
        assert not is_valid_resource_key(key)
