"""A deployment request at the edge, and the Deployment and Service it becomes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from nufi.cluster.resources import check_quantity, parse_quantity
from nufi.workloads.accelerators import Placement
from nufi.workloads.deployment_spec import DeploymentCreate, deployment_manifest, service_manifest

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
    st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "Ti"]),
)
def test_positive_quantities_are_accepted(number: int, suffix: str) -> None:
    check_quantity(f"{number}{suffix}")


@given(st.text(max_size=40))
def test_a_quantity_is_accepted_only_when_kubernetes_reads_it_as_positive(text: str) -> None:
    try:
        check_quantity(text)
    except ValueError:
        return
    assert parse_quantity(text) > Decimal(0)
    assert text == text.strip() and not text.startswith(("+", "-"))


@pytest.mark.parametrize("text", ["", "lots", "-1", "+2", "0", "0m", "2 Gi", "2GB", " 1", "1" * 33])
def test_bad_quantities_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        check_quantity(text)


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
