"""An own condition's PromQL is held to the admin query bounds wherever it runs: saving the policy and
replaying it in a dry run both refuse a `[30d]` range or a `[1h:1ms]` subquery with a 422 naming
`custom.expression` (the field it sits in), before Prometheus runs it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from support.world import World

COSTLY = ["max_over_time(lpu_temperature_celsius[30d])", "max_over_time(lpu_temperature_celsius[1h:1ms])"]


def _policy(expression: str) -> dict[str, Any]:
    return {
        "enabled": True,
        "scope": "device",
        "custom": {"enabled": True, "expression": expression, "trip_at": 90, "resume_at": 80},
    }


def _assert_names_the_expression(response: httpx.Response) -> None:
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["field"] == "custom.expression", problem
    assert problem["code"] == "query_bounds.range", problem
    assert (
        problem["detail"].startswith("custom.expression:") and "metrics.utilization" not in problem["detail"]
    )


@pytest.mark.parametrize("expression", COSTLY)
async def test_a_costly_own_expression_is_refused_on_save_and_in_a_dry_run(
    nufi: httpx.AsyncClient, world: World, expression: str
) -> None:
    policy = _policy(expression)
    dry = await nufi.post(
        "/api/v1/admin/thermal/policies/lpu/dry-run", json={"policy": policy}, headers=world.admin
    )
    _assert_names_the_expression(dry)
    saved = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
    _assert_names_the_expression(saved)
    korean = await nufi.post(
        "/api/v1/admin/thermal/policies/lpu/dry-run",
        json={"policy": policy},
        headers=world.admin | {"Accept-Language": "ko"},
    )
    assert korean.status_code == 422 and korean.json()["detail"].startswith("custom.expression:")
