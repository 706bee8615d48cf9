"""What a deployment's thermal override may do is bounded by its device type's policy: a member may
not switch protection off unless the admin's policy lets overrides do so, nor raise the trip
temperature above the policy's bound; an override stored before the bounds were tightened is shown as
not honoured, and the type's policy applies to the deployment."""

from __future__ import annotations

from typing import Any

import httpx

from support.world import World, deployment_body

POLICY: dict[str, Any] = {"enabled": True, "trip_celsius": 85, "resume_celsius": 75}


async def _put_policy(nufi: httpx.AsyncClient, world: World, **bounds: Any) -> None:
    response = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=POLICY | bounds, headers=world.admin)
    assert response.status_code == 200, response.text


async def test_a_member_cannot_switch_protection_off_or_raise_the_trip_beyond_the_bound(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await _put_policy(nufi, world, override_max_trip_celsius=90)
    created = await nufi.post(
        f"/api/v1/projects/{project}/deployments", json=deployment_body(replicas=0), headers=world.user
    )
    assert created.status_code == 201, created.text
    url = f"/api/v1/projects/{project}/deployments/llm/thermal"

    for who in (world.user, world.admin):
        off = await nufi.put(url, json={"enabled": False}, headers=who)
        assert off.status_code == 422, off.text
        assert off.json()["field"] == "enabled" and off.json()["bound"] == "overrides_may_disable"
        hot = await nufi.put(url, json={"trip_celsius": 120, "resume_celsius": 80}, headers=who)
        assert hot.status_code == 422, hot.text
        problem = hot.json()
        assert problem["field"] == "trip_celsius" and problem["limit"] == 90
        assert "90" in problem["detail"]
        assert (await nufi.get(url, headers=who)).json()["override"] is None

    # Within the bound: accepted and applied.
    within = await nufi.put(url, json={"trip_celsius": 90}, headers=world.user)
    assert within.status_code == 200, within.text
    assert within.json()["effective"]["trip_celsius"] == 90 and within.json()["not_honoured"] is None

    # The admin tightens the bound: the stored override stays, but is no longer honoured.
    await _put_policy(nufi, world, override_max_trip_celsius=87)
    kept = (await nufi.get(url, headers=world.user)).json()
    assert kept["override"]["trip_celsius"] == 90
    assert kept["effective"]["trip_celsius"] == 85
    assert "override_max_trip_celsius" in kept["not_honoured"]
    why = kept["not_honoured_message"]
    assert why["code"] == "thermal_override.trip_above_limit"
    assert (why["params"]["trip_celsius"], why["params"]["limit"]) == (90, 87)

    # Once the admin lets overrides switch protection off, a member may.
    await _put_policy(nufi, world, overrides_may_disable=True)
    allowed = await nufi.put(url, json={"enabled": False}, headers=world.user)
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["effective"]["enabled"] is False
