"""A deployment request at the edge, and the Deployment and Service it becomes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from nufi.cluster.resources import BYTES, CPU, QuantityRange, check_quantity, parse_quantity
from nufi.workloads.accelerators import Placement
from nufi.workloads.deployments.spec import DeploymentCreate, deployment_manifest, service_manifest

LPU = "hyperaccel.ai/lpu"


def _request(**changes: Any) -> DeploymentCreate:
    body: dict[str, Any] = {
        "name": "llm",
        "image": "nufi-mock:inference",
        "accelerator": {"device_type": "lpu", "count": 2},
    }
    body.update(changes)
    return DeploymentCreate.model_validate(body)


def _field_of(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.errors()[0]["loc"])


@given(
    st.integers(min_value=1, max_value=10**6),
    st.sampled_from(["", "k", "M", "G", "Ki", "Mi", "Gi"]),
    st.sampled_from([CPU, BYTES]),
)
def test_positive_quantities_are_accepted(number: int, suffix: str, bounds: QuantityRange) -> None:
    check_quantity(f"{number}{suffix}", bounds)


@given(st.text(max_size=40), st.sampled_from([CPU, BYTES]))
def test_a_quantity_is_accepted_only_when_kubernetes_reads_it_within_its_bounds(
    text: str, bounds: QuantityRange
) -> None:
    try:
        check_quantity(text, bounds)
    except ValueError:
        return
    assert bounds.least <= parse_quantity(text) <= bounds.most
    assert text == text.strip() and not text.startswith(("+", "-"))


@given(
    st.decimals(min_value=Decimal("1e-12"), max_value=Decimal("1e24"), allow_nan=False, places=12),
    st.sampled_from([CPU, BYTES]),
)
def test_an_amount_is_refused_exactly_outside_what_kubernetes_honours(
    amount: Decimal, bounds: QuantityRange
) -> None:
    text = f"{amount:f}"
    if len(text) > 32 or amount <= 0:
        return
    try:
        check_quantity(text, bounds)
    except ValueError as exc:
        assert not bounds.least <= amount <= bounds.most, exc
    else:
        assert bounds.least <= amount <= bounds.most


@pytest.mark.parametrize(
    "text", ["", "lots", "-1", "+2", "0", "0m", "2 Gi", "2GB", " 1", "1" * 33, "1e999999999"]
)
def test_bad_quantities_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        check_quantity(text, CPU)


@pytest.mark.parametrize(
    ("text", "bounds"),
    [
        ("1e400", CPU),
        ("9223372036854775808", CPU),
        ("9223372036854776", CPU),
        ("1e-9", CPU),
        ("0.0000001", CPU),
        ("1n", CPU),
        ("999u", CPU),
        ("1e400", BYTES),
        ("9223372036854775808", BYTES),
        ("8Ei", BYTES),
        ("500m", BYTES),
        ("0.5", BYTES),
    ],
)
def test_amounts_kubernetes_would_not_honour_are_refused_with_the_range(
    text: str, bounds: QuantityRange
) -> None:
    with pytest.raises(PydanticCustomError) as caught:
        check_quantity(text, bounds)
    assert caught.value.type == "quantity.out_of_range"
    assert bounds.least_shown in str(caught.value) and bounds.most_shown in str(caught.value)


@pytest.mark.parametrize(
    ("text", "bounds"),
    [
        ("1m", CPU),
        ("9223372036854775807m", CPU),
        ("1", BYTES),
        ("9223372036854775807", BYTES),
        ("7Ei", BYTES),
    ],
)
def test_the_bounds_themselves_are_honoured(text: str, bounds: QuantityRange) -> None:
    check_quantity(text, bounds)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": "Bad"}, "name"),
        ({"image": "two words"}, "image"),
        ({"replicas": 33}, "replicas"),
        ({"port": 0}, "port"),
        ({"env": [{"name": "9X"}]}, "env.0.name"),
        ({"env": [{"name": "X"}, {"name": "X"}]}, "env"),
        ({"resources": {"cpu": "fast"}}, "resources.cpu"),
        ({"resources": {"cpu": "1e-9"}}, "resources.cpu"),
        ({"resources": {"memory": "1e400"}}, "resources.memory"),
        ({"resources": {"gpu": "1"}}, "resources.gpu"),
        ({"readiness_path": "health"}, "readiness_path"),
        ({"accelerator": {"device_type": "lpu", "count": 0}}, "accelerator.count"),
        ({"accelerator": {"device_type": "lpu"}}, "accelerator.count"),
        ({"command": ["x" * 4097]}, "command"),
    ],
)
def test_each_bad_field_is_named(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        _request(**changes)
    assert _field_of(caught.value) == field


def test_the_manifests_carry_the_placement_the_labels_and_the_probe() -> None:
    request = _request(
        replicas=3,
        port=9000,
        env=[{"name": "A", "value": "1"}],
        resources={"cpu": "500m", "memory": "2Gi"},
        command=["serve"],
    )
    placement = Placement(
        "lpu", LPU, 2, node_selector={"accel": "lpu"}, tolerations=[{"key": LPU, "operator": "Exists"}]
    )
    deployment = deployment_manifest("team-a", request, placement)
    labels = {
        "app.kubernetes.io/managed-by": "nufi",
        "nufi.io/project": "team-a",
        "nufi.io/workload": "llm",
        "nufi.io/workload-kind": "deployment",
        "nufi.io/device-type": "lpu",
    }
    assert deployment["metadata"] == {"name": "llm", "namespace": "team-a", "labels": labels}
    assert deployment["spec"]["replicas"] == 3
    # Every pod starts with its traffic on, so it is routable without thermal control.
    assert deployment["spec"]["template"]["metadata"]["labels"] == {**labels, "nufi.io/traffic": "on"}
    pod = deployment["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"accel": "lpu"}
    assert pod["tolerations"] == [{"key": LPU, "operator": "Exists"}]
    (container,) = pod["containers"]
    amounts = {LPU: "2", "cpu": "500m", "memory": "2Gi"}
    assert container["resources"] == {"limits": amounts, "requests": amounts}
    assert container["readinessProbe"] == {"httpGet": {"path": "/health", "port": 9000}, "periodSeconds": 2}
    assert container["env"] == [{"name": "A", "value": "1"}]
    assert container["command"] == ["serve"] and "args" not in container
    service = service_manifest("team-a", request, placement)
    assert service["spec"]["ports"] == [{"name": "http", "port": 9000, "targetPort": 9000, "protocol": "TCP"}]
    # The Service routes to the deployment's pods while their traffic is on; the Deployment's own
    # selector leaves the traffic label out, so turning it off never orphans a pod.
    assert service["spec"]["selector"] == {
        **deployment["spec"]["selector"]["matchLabels"],
        "nufi.io/traffic": "on",
    }
    assert "nufi.io/traffic" not in deployment["spec"]["selector"]["matchLabels"]


def test_without_a_placement_selector_the_pod_spec_has_none() -> None:
    pod = deployment_manifest("p", _request(readiness_path=None), Placement("lpu", LPU, 1))["spec"][
        "template"
    ]["spec"]
    assert "nodeSelector" not in pod and "tolerations" not in pod
    assert "readinessProbe" not in pod["containers"][0]
