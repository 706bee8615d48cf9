"""DRA's CEL selectors see a device as upstream's environment shows it and fail where upstream fails."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.dra.cel import CelRuntimeError, compile_error, compile_selector, device_input
from nufi_sandbox.devcluster.dra.cel_values import compare_to, semver_value

DRIVER = "lpu.hyperaccel.ai"
LPU = {
    "name": "lpu-0",
    "attributes": {
        "model": {"string": "HA-32"},
        "numaNode": {"int": 1},
        "firmwareVersion": {"version": "2.1.0"},
        "healthy": {"bool": True},
        "pci.example.com/slot": {"string": "3"},
    },
    "capacity": {"memory": {"value": "32Gi"}},
}


def matches(expression: str, device: dict[str, Any] = LPU) -> bool:
    return compile_selector(expression).matches(device_input(DRIVER, device))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("device.driver == 'lpu.hyperaccel.ai'", True),
        # An attribute without a domain belongs to the driver; one with a domain stays under it.
        ("device.attributes['lpu.hyperaccel.ai'].model == 'HA-32'", True),
        ("device.attributes['pci.example.com'].slot == '3'", True),
        ("device.attributes['lpu.hyperaccel.ai'].numaNode == 1", True),
        ("device.attributes['lpu.hyperaccel.ai'].healthy", True),
        ("device.allowMultipleAllocations", False),
        # Capacities are quantities: compared by amount, whatever their suffix.
        ("device.capacity['lpu.hyperaccel.ai'].memory.compareTo(quantity('24Gi')) >= 0", True),
        ("device.capacity['lpu.hyperaccel.ai'].memory.compareTo(quantity('64Gi')) >= 0", False),
        ("device.capacity['lpu.hyperaccel.ai'].memory == quantity('34359738368')", True),
        ("device.capacity['lpu.hyperaccel.ai'].memory.isLessThan(quantity('40G'))", True),
        ("device.capacity['lpu.hyperaccel.ai'].memory.asInteger() == 34359738368", True),
        # Versions are semver values.
        ("device.attributes['lpu.hyperaccel.ai'].firmwareVersion.isGreaterThan(semver('2.0.9'))", True),
        ("device.attributes['lpu.hyperaccel.ai'].firmwareVersion.isGreaterThan(semver('2.1.0-rc.1'))", True),
        ("device.attributes['lpu.hyperaccel.ai'].firmwareVersion.compareTo(semver('10.0.0')) < 0", True),
        ("device.attributes['lpu.hyperaccel.ai'].firmwareVersion.major() == 2", True),
        # A domain the device does not have reads as an empty map.
        ("size(device.attributes['gpu.nvidia.com']) == 0", True),
        ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'", False),
    ],
)
def test_selector_sees_the_device_as_upstream_does(expression: str, expected: bool) -> None:
    assert matches(expression) is expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("device.attributes['lpu.hyperaccel.ai'].missing == 'x'", "no such key: missing"),
        ("device.attributes['gpu.nvidia.com'].type == 'gpu'", "no such key: type"),
        (
            "device.attributes['lpu.hyperaccel.ai'].numaNode",
            "CEL result of type int could not be converted to bool",
        ),
        ("quantity('lots') == quantity('1')", "could not parse quantity"),
    ],
)
def test_a_selector_that_fails_on_a_device_is_an_error_not_false(expression: str, message: str) -> None:
    with pytest.raises(CelRuntimeError, match=message):
        matches(expression)


def test_compile_errors_use_the_api_servers_words() -> None:
    assert compile_error("device.driver == 'x'") is None
    syntax = compile_error("device.driver == ")
    assert syntax is not None
    assert syntax.startswith("compilation failed: ERROR: <input>:1:18: Syntax error: ")
    assert syntax.endswith("\n | device.driver == \n | .................^")
    assert compile_error("gpu.type == 'x'") == (
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'gpu' (in container '')\n"
        " | gpu.type == 'x'\n | ^"
    )
    # Names a macro binds are declared.
    assert compile_error("['a'].exists(x, x == device.driver)") is None


def test_compiled_selectors_are_cached() -> None:
    assert compile_selector("device.driver == 'a'") is compile_selector("device.driver == 'a'")


_VERSION = st.tuples(*(st.integers(0, 30) for _ in range(3)), st.sampled_from(["", "-rc.1", "-alpha", "-1"]))


@given(_VERSION, _VERSION)
def test_semver_order_is_major_minor_patch_then_release_after_prerelease(
    a: tuple[int, int, int, str], b: tuple[int, int, int, str]
) -> None:
    def text(v: tuple[int, int, int, str]) -> str:
        return f"{v[0]}.{v[1]}.{v[2]}{v[3]}"

    def key(v: tuple[int, int, int, str]) -> tuple[Any, ...]:
        # Numeric pre-release identifiers sort before alphanumeric ones: -1 < -alpha < -rc.1 < release.
        rank = {"-1": 0, "-alpha": 1, "-rc.1": 2, "": 3}[v[3]]
        return (v[0], v[1], v[2], rank)

    expected = (key(a) > key(b)) - (key(a) < key(b))
    assert compare_to(semver_value(text(a)), semver_value(text(b))) == expected
