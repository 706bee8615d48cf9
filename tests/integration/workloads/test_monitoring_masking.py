"""Monitoring as a non-admin: pods of the reader's own projects by name, other projects' as
"another project"; an admin sees every name."""

from __future__ import annotations

from typing import Any

import httpx

from support.polling import until

from .workloads_world import World, deployment_body


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
    as_user = await _holders(nufi, world.user)
    assert (project, "llm") in as_user
    assert ("another project", "ano") in as_user
    assert not any(namespace == foreign_project for namespace, _ in as_user)
