"""Container resources are rejected as a real API server rejects them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.validation.objects import validate_object

from .validation_helpers import LPU, fields, with_resources

# --- extended resources: whole units, limit required, request equal to limit ------------------


def test_fractional_extended_resource_must_be_an_integer() -> None:
    causes = validate_object("Pod", with_resources({LPU: "500m"}, {LPU: "500m"}), True)
    key = f"spec.containers[0].resources.requests[{LPU}]"
    assert (key, "FieldValueInvalid", 'Invalid value: "500m": must be an integer') in fields(causes)
    assert (
        f"spec.containers[0].resources.limits[{LPU}]",
        "FieldValueInvalid",
        'Invalid value: "500m": must be an integer',
    ) in fields(causes)


def test_extended_request_without_limit_is_rejected() -> None:
    causes = validate_object("Pod", with_resources({LPU: "1"}), True)
    assert fields(causes) == [
        (
            "spec.containers[0].resources.limits",
            "FieldValueRequired",
            "Required value: Limit must be set for non overcommitable resources",
        )
    ]


def test_extended_request_must_equal_its_limit() -> None:
    causes = validate_object("Pod", with_resources({LPU: "2"}, {LPU: "1"}), True)
    assert fields(causes) == [
        (
            "spec.containers[0].resources.requests",
            "FieldValueInvalid",
            f'Invalid value: "2": must be equal to {LPU} limit of 1',
        )
    ]


@pytest.mark.parametrize(
    ("requests", "limits"),
    [(None, {LPU: "2"}), ({LPU: "3000m"}, {LPU: "3"}), ({LPU: 2}, {LPU: "2"}), ({"cpu": "1"}, None)],
)
def test_acceptable_resource_combinations(
    requests: dict[str, Any] | None, limits: dict[str, Any] | None
) -> None:
    assert validate_object("Pod", with_resources(requests, limits), True) == []


def test_native_resources_may_overcommit_but_not_exceed_limits() -> None:
    causes = validate_object("Pod", with_resources({"cpu": "2"}, {"cpu": "1500m"}), True)
    assert fields(causes) == [
        (
            "spec.containers[0].resources.requests",
            "FieldValueInvalid",
            'Invalid value: "2": must be less than or equal to cpu limit of 1500m',
        )
    ]


def test_invalid_quantities_and_resource_names() -> None:
    causes = validate_object(
        "Pod", with_resources({"memory": "1Gb", "gpu": "1", "kubernetes.io/x": "1"}), True
    )
    assert fields(causes)[0] == (
        "spec.containers[0].resources.requests[memory]",
        "FieldValueInvalid",
        'Invalid value: "1Gb": quantities must match the regular expression '
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    )
    messages = [c["message"] for c in causes if c["field"].endswith("[gpu]")]
    assert messages == [
        'Invalid value: "gpu": must be a standard resource type or fully qualified',
        'Invalid value: "gpu": must be a standard resource for containers',
    ]
    assert not [c for c in causes if "kubernetes.io" in c["field"]]


def test_negative_quantity_is_rejected() -> None:
    causes = validate_object("Pod", with_resources({"cpu": "-1"}), True)
    assert fields(causes) == [
        (
            "spec.containers[0].resources.requests[cpu]",
            "FieldValueInvalid",
            'Invalid value: "-1": must be greater than or equal to 0',
        )
    ]


@given(st.integers(min_value=1, max_value=10**6))
def test_milli_extended_requests_are_integers_only_in_whole_units(milli: int) -> None:
    causes = validate_object("Pod", with_resources({LPU: f"{milli}m"}, {LPU: f"{milli}m"}), True)
    assert bool(causes) is (milli % 1000 != 0)
