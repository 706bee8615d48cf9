"""The thermal history as a non-admin: pods and deployments of the reader's own projects by name,
any other project's — or a project since deleted — as "another project"; an admin sees every name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from nufi.api import create_app
from nufi.services import Services
from nufi.thermal.history.records import ThermalEvent
from support.asgi import serving
from support.world import World, register_lpu


@pytest.fixture
def app(world: World, tmp_path: Path) -> FastAPI:
    return create_app(world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"))


@pytest.fixture
async def nufi(app: FastAPI, world: World) -> AsyncIterator[httpx.AsyncClient]:
    """The module's NuFi, whose services the test reaches to write history events directly."""
    async with serving(app, client_timeout=30) as client:
        await register_lpu(client, world)
        yield client


def _row(node: str, details: dict[str, Any], message: str) -> ThermalEvent:
    return ThermalEvent(
        at=datetime.now(UTC),
        device_type_id="lpu",
        node=node,
        device=None,
        to_state="hot",
        temperature_celsius=91.0,
        details={"policy": {"trip_celsius": 85}, "override_of": None, **details},
        message=message,
    )


async def _events(nufi: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, dict[str, Any]]:
    response = await nufi.get("/api/v1/thermal/events", headers=headers)
    assert response.status_code == 200, response.text
    return {item["node"]: item for item in response.json()["items"]}


async def test_other_projects_pods_in_the_history_are_another_project_to_users(
    nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str, app: FastAPI
) -> None:
    services: Services = app.state.services
    mine, theirs, gone = f"{project}/llm-a", f"{foreign_project}/llm-b", "deleted-project/llm-c"
    await services.thermal.records.add(
        [
            _row(
                "lpu-node-1",
                {
                    "pods_off": [mine, theirs, gone],
                    "pods_on": [theirs],
                    "pods_kept": [
                        {"pod": mine, "reason": "the last routable replica of llm"},
                        {"pod": theirs, "reason": f"the last routable replica of {foreign_project}/llm"},
                    ],
                },
                "lpu-node-1 reached 85 °C for 10 s",
            ),
            _row(
                "lpu-node-2",
                {
                    "pods_off": [theirs],
                    "pods_on": [],
                    "pods_kept": [],
                    "override_of": f"{foreign_project}/llm",
                },
                f"lpu-node-2 reached 80 °C for 10 s (override of {foreign_project}/llm)",
            ),
        ]
    )

    as_user = await _events(nufi, world.user)
    node_1 = as_user["lpu-node-1"]["details"]
    assert node_1["pods_off"] == [mine, "another project", "another project"]
    assert node_1["pods_on"] == ["another project"]
    assert node_1["pods_kept"] == [
        {"pod": mine, "reason": "the last routable replica of llm"},
        {"pod": "another project", "reason": None, "reason_message": None},
    ]
    node_2 = as_user["lpu-node-2"]
    assert node_2["details"]["override_of"] == "another project"
    assert node_2["message"] == "lpu-node-2 reached 80 °C for 10 s (override of another project)"
    assert foreign_project not in str(as_user) and "deleted-project" not in str(as_user)
    # The policy and the readings are everyone's.
    assert as_user["lpu-node-1"]["temperature_celsius"] == 91.0 and node_1["policy"] == {"trip_celsius": 85}

    as_admin = await _events(nufi, world.admin)
    assert as_admin["lpu-node-1"]["details"]["pods_off"] == [mine, theirs, gone]
    assert as_admin["lpu-node-2"]["details"]["override_of"] == f"{foreign_project}/llm"
    # What the user was shown was a copy: the stored events keep every name.
    stored = {row.node: row for row in await services.thermal.records.events()}
    assert stored["lpu-node-1"].details["pods_on"] == [theirs]
