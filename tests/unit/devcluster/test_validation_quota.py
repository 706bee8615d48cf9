"""ResourceQuota `spec.hard` is accepted and refused as `ValidateResourceQuotaSpec` does."""

from __future__ import annotations

from typing import Any

import pytest

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.storage.store import Store
from nufi_sandbox.devcluster.validation.objects import validate_object

from .validation_helpers import LPU, fields


def quota(hard: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "team", "namespace": "default"}, "spec": {"hard": hard}}


@pytest.mark.parametrize(
    "hard",
    [
        {f"requests.{LPU}": "2"},
        # Accepted though never counted: the pod evaluator matches only `requests.<ext>`.
        {f"limits.{LPU}": "2"},
        {"requests.cpu": "500m", "limits.memory": "1Gi", "pods": "10", "count/pods": "10"},
        {"requests.storage": "10Gi", "persistentvolumeclaims": "3"},
        # `requests.<ext>` is not itself an extended resource name, so no integer rule applies to it.
        {f"requests.{LPU}": "1500m"},
    ],
)
def test_accepted_hard_limits(hard: dict[str, Any]) -> None:
    assert validate_object("ResourceQuota", quota(hard), True) == []


def test_unknown_unprefixed_name_is_refused_twice() -> None:
    assert fields(validate_object("ResourceQuota", quota({"gpus": "1"}), True)) == [
        (
            "spec.hard[gpus]",
            "FieldValueInvalid",
            'Invalid value: "gpus": must be a standard resource type or fully qualified',
        ),
        (
            "spec.hard[gpus]",
            "FieldValueInvalid",
            'Invalid value: "gpus": must be a standard resource for quota',
        ),
    ]


def test_storage_is_a_resource_but_not_a_quota_resource() -> None:
    assert fields(validate_object("ResourceQuota", quota({"storage": "1Gi"}), True)) == [
        (
            "spec.hard[storage]",
            "FieldValueInvalid",
            'Invalid value: "storage": must be a standard resource for quota',
        ),
    ]


def test_negative_fractional_and_malformed_values() -> None:
    causes = validate_object(
        "ResourceQuota", quota({"pods": "1500m", "requests.cpu": "-1", "requests.memory": "lots"}), True
    )
    assert fields(causes) == [
        ("spec.hard[pods]", "FieldValueInvalid", 'Invalid value: "1500m": must be an integer'),
        (
            "spec.hard[requests.cpu]",
            "FieldValueInvalid",
            'Invalid value: "-1": must be greater than or equal to 0',
        ),
        (
            "spec.hard[requests.memory]",
            "FieldValueInvalid",
            'Invalid value: "lots": quantities must match the regular expression '
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
    ]


def test_store_refuses_with_invalid_status_and_canonicalises_what_it_keeps() -> None:
    store = Store(ResourceRegistry.with_builtins())
    rt = store.rt("", "v1", "resourcequotas")
    with pytest.raises(errors.ApiError) as raised:
        store.create(rt, "default", quota({"pods": "-1"}))
    assert raised.value.code == 422
    assert raised.value.status()["message"] == (
        'ResourceQuota "team" is invalid: spec.hard[pods]: Invalid value: "-1": '
        "must be greater than or equal to 0"
    )
    created = store.create(
        rt, "default", {**quota({"requests.cpu": "1000m"}), "status": {"used": {"pods": "9"}}}
    )
    assert created["spec"]["hard"] == {"requests.cpu": "1"}
    # Status is the server's: a create cannot set it.
    assert "used" not in (created.get("status") or {})


def test_scopes_are_checked_against_the_resources_they_govern() -> None:
    body = quota({"pods": "1", "requests.storage": "1Gi"})
    body["spec"]["scopes"] = ["BestEffort", "NotBestEffort", "Sometimes"]
    shown = '[]core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Sometimes"}'
    assert fields(validate_object("ResourceQuota", body, True)) == [
        (
            "spec.scopes",
            "FieldValueInvalid",
            f"Invalid value: {shown}: unsupported scope applied to resource",
        ),
        (
            "spec.scopes",
            "FieldValueInvalid",
            f"Invalid value: {shown}: unsupported scope applied to resource",
        ),
        ("spec.scopes", "FieldValueInvalid", f"Invalid value: {shown}: unsupported scope"),
        ("spec.scopes", "FieldValueInvalid", f"Invalid value: {shown}: conflicting scopes"),
    ]


def test_scope_selector_operators_and_values() -> None:
    body = quota({"pods": "1"})
    body["spec"]["scopeSelector"] = {
        "matchExpressions": [
            {"scopeName": "PriorityClass", "operator": "In"},
            {"scopeName": "Terminating", "operator": "In", "values": ["x"]},
        ]
    }
    path = "spec.scopeSelector.matchExpressions"
    assert fields(validate_object("ResourceQuota", body, True)) == [
        (
            f"{path}.values",
            "FieldValueRequired",
            "Required value: must be at least one value when `operator` is 'In' or 'NotIn' "
            "for scope selector",
        ),
        (
            f"{path}.operator",
            "FieldValueInvalid",
            "Invalid value: \"In\": must be 'Exist' only operator when scope is any of "
            "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort "
            "and ResourceQuotaScopeNotBestEffort",
        ),
    ]
