"""Device-type documents: the exact API shape, and validation errors that name the field."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from nufi.devices.spec import (
    DeviceType,
    DeviceTypeCreate,
    DeviceTypeUpdate,
    MetricsDraft,
)
from nufi.devices.units import BYTES_PER_UNIT, MemoryUnit, to_bytes
from nufi.devices.validation_errors import field_errors
from support.lpu_type import LPU_LABELS, LPU_METRICS, LPU_RESOURCE_KEY

LPU: dict[str, Any] = {
    "id": "lpu",
    "name": "HyperAccel LPU",
    "vendor": "HyperAccel",
    "kind": "custom",
    "enabled": True,
    "resource_key": LPU_RESOURCE_KEY,
    "labels": copy.deepcopy(LPU_LABELS),
    "metrics": copy.deepcopy(LPU_METRICS),
    "thermal": None,
}


def create_body(**changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(LPU)
    del body["kind"]
    body.update(changes)
    return body


def errors_of(model: type[Any], body: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(body)
    return {error.field: error.message for error in field_errors(caught.value)}


def test_the_documented_shape_round_trips_exactly() -> None:
    device_type = DeviceType.model_validate(LPU)
    dumped = device_type.model_dump(mode="json")
    assert dumped == {**LPU, "fetcher": "generic", "revision": 1}
    assert list(dumped)[:9] == list(LPU)


def test_used_free_memory_serialises_free_and_not_total() -> None:
    body = copy.deepcopy(LPU)
    body["metrics"]["memory"] = {"mode": "used_free", "used": "u", "free": "f", "unit": "MiB"}
    memory = DeviceType.model_validate(body).model_dump(mode="json")["metrics"]["memory"]
    assert memory == {"mode": "used_free", "used": "u", "free": "f", "unit": "MiB"}


def test_thermal_defaults_and_fetcher_are_kept() -> None:
    device_type = DeviceTypeCreate.model_validate(
        create_body(
            thermal={"threshold_celsius": 80, "recover_celsius": 70, "sustain_seconds": 10}, fetcher="acme"
        )
    )
    assert device_type.thermal is not None and device_type.thermal.recover_celsius == 70
    assert device_type.fetcher == "acme"


def test_optional_metrics_and_workload_labels_may_be_left_out() -> None:
    body = create_body(labels={"node": "node", "device": "device"}, metrics={"utilization": "u"})
    device_type = DeviceTypeCreate.model_validate(body)
    assert device_type.labels.pod is None
    assert device_type.metrics.memory is None and device_type.metrics.power is None
    assert device_type.metrics.queries() == {"utilization": "u"}


def test_queries_name_each_reported_quantity() -> None:
    metrics = MetricsDraft.model_validate(
        {"utilization": "u", "memory": {"mode": "used_free", "used": "a", "free": "b"}, "power": "p"}
    )
    assert metrics.queries() == {"utilization": "u", "memory_used": "a", "memory_free": "b", "power": "p"}


def test_a_health_expression_is_a_reported_quantity_and_round_trips() -> None:
    body = copy.deepcopy(LPU)
    body["metrics"]["health"] = "RBLN_DEVICE_STATUS:HEALTH == bool 0"
    device_type = DeviceType.model_validate(body)
    assert device_type.model_dump(mode="json")["metrics"]["health"] == body["metrics"]["health"]
    assert device_type.metrics.queries()["health"] == body["metrics"]["health"]


def test_a_type_without_health_reads_back_without_the_key() -> None:
    dumped = DeviceType.model_validate(LPU).model_dump(mode="json")
    assert "health" not in dumped["metrics"]
    assert "health" not in DeviceType.model_validate(LPU).metrics.queries()


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"id": "LPU"}, "id", "'LPU' is not a valid id"),
        ({"id": "lpu-"}, "id", "lowercase letters"),
        ({"id": "a" * 64}, "id", "1-63"),
        ({"name": "  "}, "name", "name must not be empty"),
        ({"vendor": "v" * 101}, "vendor", "at most 100"),
        ({"resource_key": "kubernetes.io/lpu"}, "resource_key", "reserved for Kubernetes"),
        ({"resource_key": "lpu"}, "resource_key", "must contain a domain prefix"),
        ({"labels": {"node": "node-name", "device": "device"}}, "labels.node", "'node-name'"),
        ({"labels": {"node": "node", "device": "__device"}}, "labels.device", "reserves"),
        ({"labels": {"node": "n", "device": "d", "pod": "1pod"}}, "labels.pod", "'1pod'"),
        ({"labels": {"node": "n", "device": "n"}}, "labels", "both 'n'"),
        ({"labels": {"device": "d"}}, "labels.node", "required"),
        ({"metrics": {"utilization": "sum(x"}}, "metrics.utilization", "unclosed left parenthesis"),
        ({"metrics": {"utilization": "x[5m]"}}, "metrics.utilization", "range vector"),
        ({"metrics": {}}, "metrics.utilization", "required"),
        ({"metrics": {"utilization": "u", "temperature": "t{"}}, "metrics.temperature", "cannot parse"),
        ({"metrics": {"utilization": "u", "health": "h{"}}, "metrics.health", "cannot parse"),
        ({"metrics": {"utilization": "u", "health": "h[5m]"}}, "metrics.health", "range vector"),
        ({"fetcher": "Bad Name"}, "fetcher", "'Bad Name'"),
        ({"thermal": {"threshold_celsius": 70, "recover_celsius": 80}}, "thermal", "recover_celsius (80)"),
        ({"thermal": {"threshold_celsius": 500}}, "thermal.threshold_celsius", "150"),
        ({"colour": "red"}, "colour", "not part of a device type"),
    ],
)
def test_create_errors_name_the_field(changes: dict[str, Any], field: str, words: str) -> None:
    errors = errors_of(DeviceTypeCreate, create_body(**changes))
    assert field in errors, errors
    assert words in errors[field]


@pytest.mark.parametrize(
    ("memory", "words"),
    [
        ({"mode": "used_total", "used": "u"}, "metrics.memory.total is required"),
        ({"mode": "used_free", "used": "u", "total": "t"}, "metrics.memory.free is required"),
        ({"mode": "used_total", "used": "u", "total": "t", "free": "f"}, "metrics.memory.free is not used"),
        ({"mode": "both", "used": "u", "total": "t"}, "used_total"),
        ({"used": "u", "total": "t", "unit": "TiB"}, "bytes"),
        ({"used": "u(", "total": "t"}, "cannot parse 'u('"),
    ],
)
def test_memory_errors_name_the_field(memory: dict[str, Any], words: str) -> None:
    body = create_body(metrics={"utilization": "u", "memory": memory})
    errors = errors_of(DeviceTypeCreate, body)
    assert any(
        field.startswith("metrics.memory") and words in message for field, message in errors.items()
    ), errors


def test_update_carries_the_revision_it_replaces() -> None:
    body = create_body(revision=3)
    del body["id"]
    assert DeviceTypeUpdate.model_validate(body).revision == 3
    del body["revision"]
    assert "revision" in errors_of(DeviceTypeUpdate, body)
    assert "id" in errors_of(DeviceTypeUpdate, {**body, "revision": 1, "id": "lpu"})


def test_kind_is_not_chosen_by_the_creator() -> None:
    assert "kind" in errors_of(DeviceTypeCreate, create_body(kind="official"))


def test_every_problem_is_reported_in_one_go() -> None:
    errors = errors_of(DeviceTypeCreate, create_body(id="X", resource_key="x", metrics={"utilization": "("}))
    assert {"id", "resource_key", "metrics.utilization"} <= set(errors)


@pytest.mark.parametrize(
    ("unit", "factor"),
    [
        ("bytes", 1),
        ("KiB", 1024),
        ("MiB", 1048576),
        ("GiB", 1073741824),
        ("KB", 1000),
        ("MB", 10**6),
        ("GB", 10**9),
    ],
)
def test_unit_factors(unit: str, factor: int) -> None:
    assert BYTES_PER_UNIT[MemoryUnit(unit)] == factor
    assert to_bytes(2.5, MemoryUnit(unit)) == 2.5 * factor


def test_every_unit_has_a_factor() -> None:
    assert set(BYTES_PER_UNIT) == set(MemoryUnit)
