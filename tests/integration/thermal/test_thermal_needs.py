"""A condition switched on for a type that maps nothing for it to read is saved, and said: the policy's
answer (and the list) warns that it can never trip and where the expression is mapped, and the dry run
says why it left the condition out. The run's LPU maps a temperature but no health expression."""

from __future__ import annotations

from typing import Any

import httpx

from support.world import World

URL = "/api/v1/admin/thermal/policies/lpu"
NEEDS_HEALTH = {"code": "thermal_policy.needs_health", "params": {"device_type": "HyperAccel LPU"}}
UNHEALTHY_ON: dict[str, Any] = {"enabled": True, "unhealthy": {"enabled": True}}


async def test_unhealthy_switched_on_without_health_is_saved_with_a_warning(
    nufi: httpx.AsyncClient, world: World
) -> None:
    put = await nufi.put(URL, json=UNHEALTHY_ON, headers=world.admin)
    assert put.status_code == 200, put.text
    assert put.json()["warning_messages"] == [NEEDS_HEALTH]
    (said,) = put.json()["warnings"]
    assert "HyperAccel LPU maps no health expression" in said and "step 2" in said
    listed = (await nufi.get("/api/v1/thermal/policies", headers=world.admin)).json()["items"]
    (lpu,) = [item for item in listed if item["device_type"] == "lpu"]
    assert lpu["warning_messages"] == [NEEDS_HEALTH]
    # Off again: nothing to warn of.
    put = await nufi.put(URL, json={"enabled": True}, headers=world.admin)
    assert put.status_code == 200 and put.json()["warnings"] == [] == put.json()["warning_messages"]


async def test_the_dry_run_says_why_it_left_unhealthy_out(nufi: httpx.AsyncClient, world: World) -> None:
    policy = {"trip_celsius": 150, "resume_celsius": 140} | UNHEALTHY_ON
    ran = await nufi.post(f"{URL}/dry-run", json={"policy": policy}, headers=world.admin)
    assert ran.status_code == 200, ran.text
    assert ran.json()["conditions"] == ["temperature"]
    assert ran.json()["left_out_messages"] == [NEEDS_HEALTH]
    assert "can never be cut" in ran.json()["left_out"][0]
