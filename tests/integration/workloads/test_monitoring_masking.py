"""Monitoring as a non-admin: pods of the reader's own projects by name, other projects' as
"another project"; an admin sees every name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from nufi.api import create_app
from nufi.auth import Principal
from nufi.monitoring.snapshots.snapshot import Snapshot
from nufi.services import Services
from support.asgi import serving
from support.polling import until
from support.world import World, deployment_body, register_lpu


async def _holders(nufi: httpx.AsyncClient, headers: dict[str, str]) -> set[tuple[str, str]]:
    response = await nufi.get("/api/v1/monitoring/lpu", headers=headers)
    assert response.status_code == 200, response.text
    nodes: list[dict[str, Any]] = response.json()["nodes"]
    return {(p["namespace"], p["pod"][:3]) for node in nodes for p in node["pods"] or []}


async def test_other_projects_pods_are_another_project_to_users(
    nufi: httpx.AsyncClient, world: World, project: str, foreign_project: str
) -> None:
    for target in (project, foreign_project):
        created = await nufi.post(
            f"/api/v1/projects/{target}/deployments", json=deployment_body(replicas=1), headers=world.admin
        )
        assert created.status_code == 201, created.text

    async def admin_sees_both() -> set[tuple[str, str]] | None:
        seen = await _holders(nufi, world.admin)
        return seen if {(project, "llm"), (foreign_project, "llm")} <= seen else None

    await until(admin_sees_both, within=60, every=0.5)
    # Pages are rendered once per audience and answered from those bytes: interleaved reads of the
    # same page (the later ones answered without routing) never hand one reader's page to the other.
    for _ in range(3):
        as_user = await _holders(nufi, world.user)
        assert (project, "llm") in as_user
        assert ("another project", "ano") in as_user
        assert not any(namespace == foreign_project for namespace, _ in as_user)
        assert {(project, "llm"), (foreign_project, "llm")} <= await _holders(nufi, world.admin)


async def test_streamed_snapshots_are_masked_too(
    nufi: httpx.AsyncClient, world: World, foreign_project: str, tmp_path: Path
) -> None:
    created = await nufi.post(
        f"/api/v1/projects/{foreign_project}/deployments",
        json=deployment_body(replicas=1),
        headers=world.admin,
    )
    assert created.status_code == 201, created.text
    app = create_app(world.settings(f"sqlite+aiosqlite:///{tmp_path / 'stream.db'}"))
    async with serving(app, client_timeout=30) as client:
        await register_lpu(client, world)
        services: Services = app.state.services
        user = Principal(subject="user", username="user", roles=frozenset())
        admin = Principal(subject="admin", username="admin", roles=frozenset({"nufi-admin"}))

        async def first_holders(principal: Principal) -> set[tuple[str, str]]:
            stream = services.monitoring.stream(principal, "lpu", heartbeat_seconds=0.5)
            try:
                async for item in stream:
                    if isinstance(item, Snapshot):
                        return {(p.namespace, p.pod) for n in item.nodes for p in n.pods or ()}
            finally:
                await stream.aclose()
            return set()

        async def admin_sees_it() -> set[tuple[str, str]] | None:
            seen = await first_holders(admin)
            return seen if any(namespace == foreign_project for namespace, _ in seen) else None

        await until(admin_sees_it, within=60, every=0.5)
        as_user = await first_holders(user)
        assert ("another project", "another project") in as_user
        assert not any(namespace == foreign_project for namespace, _ in as_user)
