"""The request models take counts, sizes and temperatures as JSON numbers and switches as JSON
booleans: any other JSON value is refused naming the field, never coerced (`true` to 1, `"2"` to 2)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from nufi.devices.spec import ThermalDefaults
from nufi.thermal.policy import PolicyOverride, ThermalPolicy
from nufi.workloads.accelerators import AcceleratorRequest
from nufi.workloads.deployments.spec import DeploymentCreate, ReplicasPatch
from nufi.workloads.labs.model import LabRequest

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
NOT_AN_INTEGER = JSON.filter(lambda v: not (isinstance(v, int) and not isinstance(v, bool)))
NOT_A_NUMBER = JSON.filter(lambda v: not (isinstance(v, (int, float)) and not isinstance(v, bool)))
NOT_A_BOOLEAN = JSON.filter(lambda v: not isinstance(v, bool))

DEPLOYMENT: dict[str, Any] = {
    "name": "llm",
    "image": "vllm/vllm:0.6",
    "accelerator": {"device_type": "lpu", "count": 1},
}
LAB: dict[str, Any] = {"name": "nb", "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}}


def refused_at(model: type[BaseModel], body: dict[str, Any], loc: tuple[str, ...]) -> None:
    try:
        model.model_validate(body)
    except ValidationError as exc:
        assert loc in [error["loc"][: len(loc)] for error in exc.errors()], exc.errors()
    else:
        raise AssertionError(f"{body!r} was accepted")


@given(NOT_AN_INTEGER)
def test_counts_replicas_ports_and_sizes_are_json_integers(value: Any) -> None:
    refused_at(AcceleratorRequest, {"device_type": "lpu", "count": value}, ("count",))
    refused_at(ReplicasPatch, {"replicas": value}, ("replicas",))
    refused_at(DeploymentCreate, {**DEPLOYMENT, "replicas": value}, ("replicas",))
    refused_at(DeploymentCreate, {**DEPLOYMENT, "port": value}, ("port",))
    refused_at(
        DeploymentCreate,
        {**DEPLOYMENT, "accelerator": {"device_type": "lpu", "count": value}},
        ("accelerator", "count"),
    )
    refused_at(LabRequest, {**LAB, "storage_gib": value}, ("storage_gib",))
    refused_at(ThermalPolicy, {"trip_hold_seconds": value}, ("trip_hold_seconds",))
    refused_at(ThermalDefaults, {"sustain_seconds": value}, ("sustain_seconds",))


@given(NOT_A_NUMBER)
def test_temperatures_are_json_numbers(value: Any) -> None:
    refused_at(ThermalPolicy, {"trip_celsius": value}, ("trip_celsius",))
    refused_at(ThermalDefaults, {"threshold_celsius": value}, ("threshold_celsius",))
    if value is not None:  # null in an override means "the type's own"
        refused_at(PolicyOverride, {"trip_celsius": value}, ("trip_celsius",))


@given(NOT_A_BOOLEAN)
def test_switches_are_json_booleans(value: Any) -> None:
    refused_at(ThermalPolicy, {"enabled": value}, ("enabled",))
    refused_at(ThermalPolicy, {"taint_node": value}, ("taint_node",))
    if value is not None:
        refused_at(PolicyOverride, {"enabled": value}, ("enabled",))


@given(st.integers(1, 128), st.integers(0, 32), st.integers(1, 4096))
def test_integers_in_range_are_accepted(count: int, replicas: int, storage: int) -> None:
    accelerator = {"device_type": "lpu", "count": count}
    assert (
        DeploymentCreate.model_validate(
            {**DEPLOYMENT, "accelerator": accelerator, "replicas": replicas}
        ).replicas
        == replicas
    )
    assert (
        LabRequest.model_validate({**LAB, "accelerator": accelerator, "storage_gib": storage}).storage_gib
        == storage
    )


@given(st.integers(40, 150) | st.floats(40, 150))
def test_a_whole_number_is_a_temperature(trip: float) -> None:
    # JSON has one number type: 80 and 80.0 are the same temperature.
    assert ThermalPolicy.model_validate({"trip_celsius": trip, "resume_celsius": 30}).trip_celsius == trip
