"""JSON bodies through the REST API: a count, a size, a temperature or a switch written as a string or
as the wrong JSON type is refused 422 naming the field, never read as what it looks like
(`count: true` as 1, `replicas: "2"` as 2). Query strings stay text, as they are by nature."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from support.lpu_type import lpu_type
from support.world import World, deployment_body

BAD_NUMBERS: list[Any] = [True, False, "1", "2", 1.5, None, [1], {"n": 1}]


def assert_refused(response: httpx.Response, field: str) -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["field"] == field, problem
    assert field.rsplit(".", 1)[-1] in problem["detail"]


@pytest.mark.parametrize("value", BAD_NUMBERS)
async def test_a_deployments_count_replicas_and_port_are_json_integers(
    nufi: httpx.AsyncClient, world: World, project: str, value: Any
) -> None:
    path = f"/api/v1/projects/{project}/deployments"
    cases = [
        (deployment_body(accelerator={"device_type": "lpu", "count": value}), "accelerator.count"),
        (deployment_body(replicas=value), "replicas"),
        (deployment_body(port=value), "port"),
    ]
    for body, field in cases:
        assert_refused(await nufi.post(path, json=body, headers=world.user), field)
    scaled = await nufi.patch(f"{path}/llm", json={"replicas": value}, headers=world.user)
    assert_refused(scaled, "replicas")


@pytest.mark.parametrize("value", BAD_NUMBERS)
async def test_a_labs_count_and_storage_are_json_integers(
    nufi: httpx.AsyncClient, world: World, project: str, value: Any
) -> None:
    path = f"/api/v1/projects/{project}/labs"
    good: dict[str, Any] = {
        "name": "nb",
        "kind": "jupyter",
        "accelerator": {"device_type": "lpu", "count": 1},
    }
    cases = [
        ({**good, "accelerator": {"device_type": "lpu", "count": value}}, "accelerator.count"),
        ({**good, "storage_gib": value}, "storage_gib"),
    ]
    for body, field in cases:
        assert_refused(await nufi.post(path, json=body, headers=world.user), field)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"enabled": "true"}, "enabled"),
        ({"enabled": 1}, "enabled"),
        ({"trip_celsius": "85"}, "trip_celsius"),
        ({"trip_celsius": True}, "trip_celsius"),
        ({"trip_hold_seconds": "10"}, "trip_hold_seconds"),
        ({"trip_hold_seconds": 10.5}, "trip_hold_seconds"),
        ({"allow_full_shutoff": "false"}, "allow_full_shutoff"),
    ],
)
async def test_a_thermal_policy_and_override_take_json_numbers_and_booleans(
    nufi: httpx.AsyncClient, world: World, project: str, changes: dict[str, Any], field: str
) -> None:
    policy = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=changes, headers=world.admin)
    assert_refused(policy, field)
    dry_run = await nufi.post(
        "/api/v1/admin/thermal/policies/lpu/dry-run", json={"policy": changes}, headers=world.admin
    )
    assert_refused(dry_run, f"policy.{field}")
    if field in ("enabled", "trip_celsius"):
        override = await nufi.put(
            f"/api/v1/projects/{project}/deployments/llm/thermal", json=changes, headers=world.user
        )
        assert_refused(override, field)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"enabled": "yes"}, "enabled"),
        ({"thermal": {"threshold_celsius": "90", "recover_celsius": 70}}, "thermal.threshold_celsius"),
        ({"thermal": {"sustain_seconds": True}}, "thermal.sustain_seconds"),
    ],
)
async def test_a_device_types_switch_and_thermal_defaults_are_json_typed(
    nufi: httpx.AsyncClient, world: World, changes: dict[str, Any], field: str
) -> None:
    body = lpu_type(id="strict-lpu", **changes)
    response = await nufi.post(
        "/api/v1/admin/devices", json=body, params={"force": "true"}, headers=world.admin
    )
    assert_refused(response, field)


async def test_proper_json_types_are_still_accepted(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    policy = {"enabled": True, "trip_celsius": 80, "resume_celsius": 70.5, "trip_hold_seconds": 5}
    response = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
    # A whole number is a temperature too (JSON has one number type).
    assert response.status_code == 200, response.text
    assert response.json()["policy"]["trip_celsius"] == 80.0


@pytest.mark.parametrize(
    ("field", "value", "least", "most"),
    [
        ("cpu", "1e400", "1m", "9223372036854775807m"),
        ("cpu", "9223372036854775808", "1m", "9223372036854775807m"),
        ("cpu", "1e-9", "1m", "9223372036854775807m"),
        ("cpu", "0.0000001", "1m", "9223372036854775807m"),
        ("memory", "1e400", "1", "9223372036854775807"),
        ("memory", "0.5", "1", "9223372036854775807"),
    ],
)
async def test_a_quantity_kubernetes_would_not_honour_is_refused_with_its_range(
    nufi: httpx.AsyncClient, world: World, project: str, field: str, value: str, least: str, most: str
) -> None:
    body = deployment_body(replicas=0, resources={field: value})
    refused = await nufi.post(f"/api/v1/projects/{project}/deployments", json=body, headers=world.user)
    assert_refused(refused, f"resources.{field}")
    reason = refused.json()["errors"][0]
    assert reason["code"] == "quantity.out_of_range" and reason["params"]["least"] == least, reason
    assert reason["params"]["most"] == most
    storage = await nufi.put(
        f"/api/v1/admin/projects/{project}/quotas", json={"storage": value}, headers=world.admin
    )
    if field == "memory":
        assert_refused(storage, "storage")
