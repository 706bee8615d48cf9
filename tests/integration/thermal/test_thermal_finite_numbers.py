"""Numbers in request bodies are finite, API-wide: `NaN`, `Infinity`, `-Infinity` (JSON extensions
Python's decoder takes) and `1e400` (read as infinity) are a 422 naming the field, on the thermal
policy, the alert thresholds and a deployment's override alike, and nothing is stored. And a member's
override stays within the type's policy when the admin has set no bounds: no trip above the policy's,
no resume far below the trip."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.world import World, deployment_body

NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]
JSON = {"Content-Type": "application/json"}


async def _stored_policy(nufi: httpx.AsyncClient, world: World) -> dict[str, Any]:
    listed = await nufi.get("/api/v1/thermal/policies", headers=world.admin)
    assert listed.status_code == 200, listed.text
    return next(item for item in listed.json()["items"] if item["device_type"] == "lpu")


def assert_named(response: httpx.Response, field: str) -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["field"] == field, problem
    assert problem["errors"][0]["code"] == "request.finite_number", problem


@pytest.mark.parametrize("token", NON_FINITE)
async def test_a_non_finite_number_is_refused_naming_its_field(
    nufi: httpx.AsyncClient, world: World, project: str, token: str
) -> None:
    policy = "/api/v1/admin/thermal/policies/lpu"
    before = await _stored_policy(nufi, world)
    for body, field in (
        ('{"custom": {"trip_at": X, "resume_at": 0}}', "custom.trip_at"),
        ('{"enabled": true, "custom": {"trip_at": 1, "resume_at": X}}', "custom.resume_at"),
        ('{"trip_celsius": X}', "trip_celsius"),
        ('{"breaker": {"max_node_share": X}}', "breaker.max_node_share"),
    ):
        refused = await nufi.put(policy, content=body.replace("X", token), headers=world.admin | JSON)
        assert_named(refused, field)
    assert await _stored_policy(nufi, world) == before

    alerts = "/api/v1/admin/devices/lpu/alerts"
    assert_named(
        await nufi.put(
            alerts, content='{"hot": {"celsius": X}}'.replace("X", token), headers=world.admin | JSON
        ),
        "hot.celsius",
    )
    assert_named(
        await nufi.put(
            alerts, content='{"memory": {"percent": X}}'.replace("X", token), headers=world.admin | JSON
        ),
        "memory.percent",
    )

    created = await nufi.post(
        f"/api/v1/projects/{project}/deployments", json=deployment_body(replicas=0), headers=world.user
    )
    assert created.status_code == 201, created.text
    override = f"/api/v1/projects/{project}/deployments/llm/thermal"
    refused = await nufi.put(
        override, content='{"resume_celsius": X}'.replace("X", token), headers=world.user | JSON
    )
    assert_named(refused, "resume_celsius")
    assert (await nufi.get(override, headers=world.user)).json()["override"] is None


async def test_a_non_finite_number_where_an_integer_belongs_is_refused_as_not_finite(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    body = deployment_body(replicas=0)
    text = httpx.Request("POST", "/", json=body).content.decode().replace('"replicas": 0', '"replicas": NaN')
    text = text.replace('"replicas":0', '"replicas":NaN')
    assert "NaN" in text
    refused = await nufi.post(
        f"/api/v1/projects/{project}/deployments", content=text, headers=world.user | JSON
    )
    assert_named(refused, "replicas")


async def test_finite_numbers_and_invalid_json_are_answered_as_before(
    nufi: httpx.AsyncClient, world: World
) -> None:
    alerts = "/api/v1/admin/devices/lpu/alerts"
    kept = await nufi.put(alerts, content='{"memory": {"percent": 9.5e1}}', headers=world.admin | JSON)
    assert kept.status_code == 200, kept.text
    broken = await nufi.put(alerts, content='{"memory": ', headers=world.admin | JSON)
    assert broken.status_code == 422 and broken.json()["errors"][0]["code"] == "request.json_invalid"


async def test_a_members_override_stays_within_the_types_policy_by_default(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    policy: dict[str, Any] = {"enabled": True, "trip_celsius": 85, "resume_celsius": 75}
    put = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
    assert put.status_code == 200, put.text
    assert put.json()["policy"]["override_max_trip_celsius"] is None
    created = await nufi.post(
        f"/api/v1/projects/{project}/deployments", json=deployment_body(replicas=0), headers=world.user
    )
    assert created.status_code == 201, created.text
    url = f"/api/v1/projects/{project}/deployments/llm/thermal"

    hot = await nufi.put(url, json={"trip_celsius": 150, "resume_celsius": 149}, headers=world.user)
    assert hot.status_code == 422, hot.text
    assert (hot.json()["field"], hot.json()["limit"]) == ("trip_celsius", 85)
    assert hot.json()["code"] == "thermal_override.trip_above_policy"
    cold = await nufi.put(url, json={"resume_celsius": 0}, headers=world.user)
    assert cold.status_code == 422, cold.text
    assert (cold.json()["field"], cold.json()["code"]) == (
        "resume_celsius",
        "thermal_override.resume_too_low",
    )
    assert (await nufi.get(url, headers=world.user)).json()["override"] is None

    # Lowering the trip (more protection) within the type's gap is the member's to choose.
    lower = await nufi.put(url, json={"trip_celsius": 80, "resume_celsius": 70}, headers=world.user)
    assert lower.status_code == 200, lower.text
    assert lower.json()["effective"]["trip_celsius"] == 80

    # An admin may allow a higher trip for overrides; then it is the admin's bound that holds.
    widened = await nufi.put(
        "/api/v1/admin/thermal/policies/lpu",
        json=policy | {"override_max_trip_celsius": 95},
        headers=world.admin,
    )
    assert widened.status_code == 200, widened.text
    higher = await nufi.put(url, json={"trip_celsius": 95}, headers=world.user)
    assert higher.status_code == 200, higher.text
    beyond = await nufi.put(url, json={"trip_celsius": 96}, headers=world.user)
    assert (beyond.status_code, beyond.json()["code"]) == (422, "thermal_override.trip_above_limit")


async def test_a_policy_stored_with_nan_before_numbers_had_to_be_finite_still_reads_and_can_be_fixed(
    nufi: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    policy: dict[str, Any] = {"enabled": True, "trip_celsius": 85, "resume_celsius": 75}
    put = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
    assert put.status_code == 200, put.text
    # What an older NuFi let through: an own condition's trip stored as NaN.
    with sqlite3.connect(tmp_path / "nufi.db") as db:
        (text,) = db.execute("SELECT policy FROM thermal_policies WHERE device_type_id = 'lpu'").fetchone()
        stored = json.loads(text)
        stored["custom"]["trip_at"] = math.nan
        db.execute(
            "UPDATE thermal_policies SET policy = ? WHERE device_type_id = 'lpu'", (json.dumps(stored),)
        )
    shown = await _stored_policy(nufi, world)
    # The controller applies the type's default to an unusable stored policy, and so it is shown, with why.
    assert shown["source"] == "default" and shown["policy"]["custom"]["trip_at"] == 1.0
    assert shown["unreadable_message"]["code"] == "thermal_policy.unreadable", shown
    assert shown["unreadable_message"]["params"]["reason"]["code"] == "request.finite_number", shown
    fixed = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
    assert fixed.status_code == 200, fixed.text
    assert (await _stored_policy(nufi, world))["source"] == "admin"
    assert (await _stored_policy(nufi, world))["unreadable"] is None
