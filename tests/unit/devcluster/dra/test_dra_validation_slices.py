"""ResourceSlices are checked as kube-apiserver checks them: driver, pool, nodes, devices, attributes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.dra.validation_names import label_causes, qualified_name_causes
from support.dra_manifests import EXAMPLE_SLICE, fresh

from .dra_validation_support import causes, refusal

C_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
NAME_CHARS = st.text(alphabet="abcXYZ019_-./", max_size=40)


def slice_with(**spec: Any) -> dict[str, Any]:
    obj = fresh(EXAMPLE_SLICE)
    obj["spec"].update(spec)
    return obj


def first_device(obj: dict[str, Any]) -> dict[str, Any]:
    device: dict[str, Any] = obj["spec"]["devices"][0]
    return device


def test_the_example_drivers_slice_is_accepted() -> None:
    assert causes(fresh(EXAMPLE_SLICE)) == []


def test_at_most_128_devices() -> None:
    device = first_device(EXAMPLE_SLICE)
    many = slice_with(devices=[{**device, "name": f"gpu-{i}"} for i in range(129)])
    assert refusal(many) == (
        'ResourceSlice.resource.k8s.io "kind-worker-gpu.example.com-abcde" is invalid: '
        "spec.devices: Too many: 129: must have at most 128 items"
    )
    assert causes(slice_with(devices=[{**device, "name": f"gpu-{i}"} for i in range(128)])) == []


def test_exactly_one_way_to_name_the_nodes() -> None:
    none = fresh(EXAMPLE_SLICE)
    del none["spec"]["nodeName"]
    one_of = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
    assert causes(none) == [("spec", f"Required value: {one_of}")]
    assert causes(slice_with(allNodes=True)) == [
        ("spec", f'Invalid value: "{{`nodeName`, `allNodes`}}": {one_of}, but multiple fields are set')
    ]
    del none["spec"]["pool"]
    none["spec"]["pool"] = {"name": "shared", "generation": 0, "resourceSliceCount": 1}
    none["spec"]["allNodes"] = False
    assert ("spec.allNodes", "Invalid value: false: must be either unset or set to true") in causes(none)
    selector = {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
    }
    del none["spec"]["allNodes"]
    none["spec"]["nodeSelector"] = selector
    assert causes(none) == []
    selector["nodeSelectorTerms"][0]["matchExpressions"][0]["operator"] = "Near"
    assert (
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator",
        'Invalid value: "Near": not a valid selector operator',
    ) in causes(none)


def test_pool_name_generation_and_slice_count() -> None:
    obj = slice_with(pool={"name": "", "generation": -1, "resourceSliceCount": 0})
    assert causes(obj) == [
        ("spec.pool.name", "Required value"),
        ("spec.pool.resourceSliceCount", "Invalid value: 0: must be greater than zero"),
        ("spec.pool.generation", "Invalid value: -1: must be greater than or equal to zero"),
    ]


def test_driver_names_are_short_subdomains() -> None:
    assert causes(slice_with(driver="x" * 64 + ".example.com"))[0] == (
        "spec.driver",
        "Too long: may not be more than 63 bytes",
    )
    assert [f for f, _ in causes(slice_with(driver="-gpu.example.com"))] == ["spec.driver"]
    assert causes(slice_with(driver="GPU.example.com")) == [], (
        "upstream lowercases the driver before checking it"
    )


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("a/b/c", 'Invalid value: "a/b/c": must not contain more than one slash'),
        ("/model", 'Invalid value: "": the domain must not be empty'),
        ("gpu.example.com/", 'Invalid value: "": the name must not be empty'),
        ("x" * 33, "Too long: may not be more than 32 bytes"),
    ],
)
def test_attribute_names(name: str, detail: str) -> None:
    obj = fresh(EXAMPLE_SLICE)
    first_device(obj)["attributes"] = {name: {"int": 1}}
    assert causes(obj)[0] == ("spec.devices[0].attributes", detail)


def test_attribute_values() -> None:
    obj = fresh(EXAMPLE_SLICE)
    first_device(obj)["attributes"] = {"a": {}, "b": {"version": "1.0"}, "c": {"int": 1, "bool": True}}
    assert causes(obj) == [
        ("spec.devices[0].attributes[a]", 'Invalid value: "": exactly one value must be specified'),
        (
            "spec.devices[0].attributes[b].version",
            'Invalid value: "1.0": must be a string compatible with semver.org spec 2.0.0',
        ),
        (
            "spec.devices[0].attributes[c]",
            'Invalid value: {"bool":true,"int":1}: exactly one value must be specified',
        ),
    ]


def test_device_names_are_unique_labels() -> None:
    obj = fresh(EXAMPLE_SLICE)
    obj["spec"]["devices"][1]["name"] = "gpu-0"
    obj["spec"]["devices"][2]["name"] = "GPU_2"
    found = causes(obj)
    assert found[0][0] == "spec.devices[2].name"
    assert found[1] == ("spec.devices[1]", 'Duplicate value: "gpu-0"')


def test_a_slice_keeps_its_driver_pool_and_node() -> None:
    stored = fresh(EXAMPLE_SLICE)
    assert causes(fresh(EXAMPLE_SLICE), old=stored) == []
    moved = slice_with(nodeName="kind-worker2")
    assert ("spec.nodeName", 'Invalid value: "kind-worker2": field is immutable') in causes(moved, old=stored)
    newer = fresh(EXAMPLE_SLICE)
    newer["spec"]["pool"]["generation"] = 1
    assert causes(newer, old=stored) == []


def _valid_id(text: str) -> bool:
    return bool(C_ID.fullmatch(text)) and len(text) <= 32


@given(NAME_CHARS)
def test_qualified_names_follow_upstreams_grammar(name: str) -> None:
    parts = name.split("/")
    if len(parts) == 1:
        valid = _valid_id(name)
    elif len(parts) == 2:
        domain, ident = parts
        valid = bool(SUBDOMAIN.fullmatch(domain.lower())) and len(domain) <= 63 and _valid_id(ident)
    else:
        valid = False
    assert (qualified_name_causes(name, "f") == []) is valid


@given(NAME_CHARS)
def test_request_and_device_names_are_dns_labels(name: str) -> None:
    assert (label_causes(name, "f") == []) is (bool(LABEL.fullmatch(name)) and len(name) <= 63)
