"""The device plugin's health control file: parsing, writing and the 'all' shorthand."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_mock.deviceplugin.health_file import (
    HealthFileError,
    expand_all,
    normalise_health,
    parse_health,
    render_health,
)

health_values = st.sampled_from(["Healthy", "Unhealthy"])
device_ids = st.integers(0, 64).map(lambda i: f"lpu{i}")


@given(st.dictionaries(device_ids, health_values))
def test_render_then_parse_keeps_every_unhealthy_device(health: dict[str, str]) -> None:
    parsed = parse_health(render_health(health))
    assert parsed == {d: h for d, h in health.items() if h == "Unhealthy"}


@given(st.dictionaries(device_ids, health_values))
def test_render_under_all_keeps_healthy_exceptions(health: dict[str, str]) -> None:
    document = {"all": "Unhealthy", **health}
    assert parse_health(render_health(document)) == document


@pytest.mark.parametrize("text", ["healthy", "HEALTHY", " Healthy "])
def test_health_words_are_normalised(text: str) -> None:
    assert normalise_health(text) == "Healthy"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ("[]", "expected an object"),
        ('{"devices": ["lpu1"]}', "expected an object"),
        ('{"devices": {"lpu1": 1}}', "must be a string"),
        ('{"devices": {"lpu1": "Broken"}}', "must be Healthy or Unhealthy"),
    ],
)
def test_bad_files_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(HealthFileError, match=message):
        parse_health(text, source="h.json")


def test_empty_file_means_all_healthy() -> None:
    assert parse_health("  \n") == {}


@given(st.one_of(st.text(), st.dictionaries(st.text(), st.text()).map(lambda d: json.dumps({"devices": d}))))
def test_parser_either_refuses_or_returns_valid_health(text: str) -> None:
    try:
        parsed = parse_health(text)
    except HealthFileError as exc:
        assert str(exc).startswith("health file")
    else:
        assert set(parsed.values()) <= {"Healthy", "Unhealthy"}


def test_all_applies_to_every_device_except_explicit_entries() -> None:
    ids = ["lpu0", "lpu1", "lpu2"]
    assert expand_all({"all": "Unhealthy", "lpu1": "Healthy"}, ids) == {
        "lpu0": "Unhealthy",
        "lpu1": "Healthy",
        "lpu2": "Unhealthy",
    }
    assert expand_all({"lpu2": "Unhealthy"}, ids) == {"lpu2": "Unhealthy"}


def test_rendered_file_is_the_documented_shape() -> None:
    assert json.loads(render_health({"lpu1": "Unhealthy", "lpu0": "Healthy"})) == {
        "devices": {"lpu1": "Unhealthy"}
    }
