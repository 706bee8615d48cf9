"""ResourceClaims, templates and DeviceClasses are checked as kube-apiserver checks them, in its words."""

from __future__ import annotations

from typing import Any

import pytest

from support.dra_manifests import EXAMPLE_CLAIM, EXAMPLE_TEMPLATE, NVIDIA_CLASS, REBELLIONS_CLASS, fresh

from .dra_validation_support import causes, refusal

REQUEST = "spec.devices.requests[0]"


def claim_with(**exactly: Any) -> dict[str, Any]:
    claim = fresh(EXAMPLE_CLAIM)
    claim["spec"]["devices"]["requests"][0]["exactly"].update(exactly)
    return claim


@pytest.mark.parametrize("obj", [EXAMPLE_CLAIM, EXAMPLE_TEMPLATE, NVIDIA_CLASS, REBELLIONS_CLASS])
def test_upstream_shaped_objects_are_accepted(obj: dict[str, Any]) -> None:
    assert causes(fresh(obj)) == []


def test_a_request_is_defaulted_to_one_device_as_upstream_defaults_it() -> None:
    claim = claim_with(count=0)
    assert causes(claim) == []
    stored = claim["spec"]["devices"]["requests"][0]["exactly"]
    assert (stored["allocationMode"], stored["count"]) == ("ExactCount", 1)
    template = fresh(EXAMPLE_TEMPLATE)
    causes(template)
    small = template["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"][1]
    assert (small["allocationMode"], small["count"]) == ("ExactCount", 1)


def test_a_negative_count_is_refused_with_kube_apiservers_message() -> None:
    assert refusal(claim_with(count=-1)) == (
        'ResourceClaim.resource.k8s.io "single-gpu" is invalid: '
        f"{REQUEST}.exactly.count: Invalid value: -1: must be greater than zero"
    )


def test_allocation_modes() -> None:
    assert causes(claim_with(allocationMode="All", count=2)) == [
        (f"{REQUEST}.exactly.count", "Invalid value: 2: must not be specified when allocationMode is 'All'")
    ]
    assert causes(claim_with(allocationMode="All")) == []
    assert causes(claim_with(allocationMode="Most")) == [
        (
            f"{REQUEST}.exactly.allocationMode",
            'Unsupported value: "Most": supported values: "All", "ExactCount"',
        )
    ]


def test_a_request_is_exactly_one_kind() -> None:
    both = fresh(EXAMPLE_CLAIM)
    request = both["spec"]["devices"]["requests"][0]
    request["firstAvailable"] = [{"name": "one", "deviceClassName": "gpu.example.com"}]
    assert causes(both) == [
        (
            REQUEST,
            'Invalid value: "null": exactly one of `exactly` or `firstAvailable` is required, '
            "but multiple fields are set",
        )
    ]
    neither = {"name": "gpu"}
    both["spec"]["devices"]["requests"] = [neither]
    assert causes(both) == [
        (REQUEST, "Required value: exactly one of `exactly` or `firstAvailable` is required")
    ]


def test_request_names_are_dns_labels_and_unique() -> None:
    claim = fresh(EXAMPLE_CLAIM)
    first = claim["spec"]["devices"]["requests"][0]
    claim["spec"]["devices"]["requests"] = [first, {**first}, {**first, "name": "Big_GPU"}]
    found = causes(claim)
    assert ("spec.devices.requests[1]", 'Duplicate value: "gpu"') in found
    field, message = found[0]
    assert field == "spec.devices.requests[2].name"
    assert message.startswith('Invalid value: "Big_GPU": a lowercase RFC 1123 label must consist of')


def test_device_class_name_is_required_and_a_subdomain() -> None:
    assert causes(claim_with(deviceClassName="")) == [
        (f"{REQUEST}.exactly.deviceClassName", "Required value")
    ]
    assert causes(claim_with(deviceClassName="GPU")) != []


def test_a_selector_must_compile() -> None:
    found = causes(claim_with(selectors=[{"cel": {"expression": "device.driver =="}}]))
    assert [f for f, _ in found] == [f"{REQUEST}.exactly.selectors[0].cel.expression"]
    assert found[0][1].startswith('Invalid value: "device.driver ==": compilation failed: ')
    assert causes(claim_with(selectors=[{}])) == [(f"{REQUEST}.exactly.selectors[0].cel", "Required value")]


def test_lists_past_their_limit_are_refused_without_looking_inside() -> None:
    claim = fresh(EXAMPLE_CLAIM)
    first = claim["spec"]["devices"]["requests"][0]
    claim["spec"]["devices"]["requests"] = [{**first, "name": f"r{i}"} for i in range(33)]
    assert causes(claim) == [("spec.devices.requests", "Too many: 33: must have at most 32 items")]


def test_constraints_name_requests_of_the_claim_and_a_qualified_attribute() -> None:
    template = fresh(EXAMPLE_TEMPLATE)
    devices = template["spec"]["spec"]["devices"]
    devices["constraints"] = [
        {"requests": ["gpus/huge"], "matchAttribute": "model"},
        {"requests": ["gpus"]},
    ]
    ref = "must be the name of a request in the claim or the name of a request and a subrequest separated by "
    ref += "'/'"
    assert causes(template) == [
        ("spec.spec.devices.constraints[0].requests[0]", f'Invalid value: "gpus/huge": {ref}'),
        (
            "spec.spec.devices.constraints[0].matchAttribute",
            'Invalid value: "model": a fully qualified name must be a domain and a name separated by a slash',
        ),
        ("spec.spec.devices.constraints[1].matchAttribute", "Required value"),
    ]


def test_opaque_config_needs_a_driver_and_an_object() -> None:
    template = fresh(EXAMPLE_TEMPLATE)
    config = template["spec"]["spec"]["devices"]["config"][0]
    config["opaque"]["parameters"] = ["not", "an", "object"]
    assert causes(template) == [
        (
            "spec.spec.devices.config[0].opaque.parameters",
            'Invalid value: "<value omitted>": must be a valid JSON object',
        )
    ]


def test_template_labels_are_checked_where_the_template_keeps_them() -> None:
    template = fresh(EXAMPLE_TEMPLATE)
    template["spec"]["metadata"]["labels"] = {"app": "-bad-"}
    assert [f for f, _ in causes(template)] == ["spec.metadata.labels"]


def test_a_claims_spec_is_immutable_but_the_same_spec_applies_again() -> None:
    stored = fresh(EXAMPLE_CLAIM)
    causes(stored)
    assert causes(fresh(EXAMPLE_CLAIM), old=stored) == []
    changed = claim_with(count=2)
    found = causes(changed, old=stored)
    assert [f for f, _ in found] == ["spec"]
    assert found[0][1].endswith(": field is immutable")
    template = fresh(EXAMPLE_TEMPLATE)
    causes(template)
    other = fresh(EXAMPLE_TEMPLATE)
    other["spec"]["metadata"]["labels"]["app"] = "training"
    assert [f for f, _ in causes(other, old=template)] == ["spec"]


@pytest.mark.parametrize("name", ["gpu", "kubernetes.io/gpu", "requests.example.com/gpu", "-x-/gpu"])
def test_a_class_extended_resource_name_must_be_an_extended_resource(name: str) -> None:
    device_class = fresh(NVIDIA_CLASS)
    device_class["spec"]["extendedResourceName"] = name
    assert causes(device_class) == [
        ("spec.extendedResourceName", f'Invalid value: "{name}": must be a valid extended resource name')
    ]


def test_a_stored_class_selector_is_not_compiled_again_but_a_new_one_is() -> None:
    stored = fresh(NVIDIA_CLASS)
    stored["spec"]["selectors"] = [{"cel": {"expression": "device.driver =="}}]
    assert causes(fresh(stored), old=stored) == []
    assert [f for f, _ in causes(fresh(stored), old=NVIDIA_CLASS)] == ["spec.selectors[0].cel.expression"]
