"""Two NuFi replicas on one cluster and one database: both assess, exactly one acts (the Lease holder);
when it stops without a word the other takes over within the lease duration; and stopping every replica
leaves every pod's traffic as it was (nothing is cut by NuFi going away).

The action watched is the simplest one a controller takes: with the type's policy disabled, a serving
pod whose traffic is off is turned back on."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx

from nufi.api import create_app
from nufi.cluster import ClusterGateway
from nufi.cluster.deployments import list_pods
from nufi.cluster.traffic import set_pod_traffic
from nufi.config import Settings
from support.asgi import serving
from support.polling import present, until
from support.world import World, create_project, deployment_body, project_name, register_lpu

LEASE_SECONDS = 2.0


def _replica(world: World, database: Path, lease: str) -> Settings:
    return world.settings(f"sqlite+aiosqlite:///{database}").model_copy(
        update={
            "thermal_lease_name": lease,
            "thermal_lease_seconds": LEASE_SECONDS,
            "thermal_renew_deadline_seconds": 1.5,
            "thermal_retry_seconds": 0.2,
            "thermal_interval_seconds": 0.2,
        }
    )


async def _statuses(clients: list[httpx.AsyncClient], world: World) -> list[dict[str, Any]]:
    return [(await c.get("/api/v1/thermal/status", headers=world.admin)).json() for c in clients]


async def _one_leader(clients: list[httpx.AsyncClient], world: World) -> list[int] | None:
    """[the index of the one replica leading], or None while none or both say they lead."""
    leaders = [i for i, s in enumerate(await _statuses(clients, world)) if s["leader"]]
    return leaders if len(leaders) == 1 else None


async def _agreed_leader(clients: list[httpx.AsyncClient], world: World) -> list[int] | None:
    """[the index of the one replica leading] once every replica names it as the Lease's holder."""
    statuses = await _statuses(clients, world)
    leaders = [i for i, s in enumerate(statuses) if s["leader"]]
    if len(leaders) != 1 or {s["holder"] for s in statuses} != {statuses[leaders[0]]["identity"]}:
        return None
    return leaders


async def _traffic(cluster: ClusterGateway, project: str) -> dict[str, str]:
    pods = await list_pods(cluster, project, label_selector="nufi.io/workload=llm")
    return {p["metadata"]["name"]: p["metadata"]["labels"].get("nufi.io/traffic", "") for p in pods}


async def _turn_off(cluster: ClusterGateway, project: str, pod: str) -> None:
    await set_pod_traffic(cluster, project, pod, labels={"nufi.io/traffic": "off"}, annotations={})


async def test_one_replica_acts_the_other_takes_over_and_stopping_both_cuts_nothing(
    world: World, tmp_path: Path
) -> None:
    # Only these two replicas run a controller here (no other NuFi of the test world is serving).
    project = project_name()
    cluster = ClusterGateway.from_settings(Settings(kubeconfig=world.cluster.kubeconfig))
    lease = f"thermal-{project}"
    try:
        async with AsyncExitStack() as first_stack, AsyncExitStack() as second_stack:
            stacks = [first_stack, second_stack]
            apps = [create_app(_replica(world, tmp_path / "nufi.db", lease)) for _ in stacks]
            clients = [
                await stack.enter_async_context(serving(app, client_timeout=30))
                for stack, app in zip(stacks, apps, strict=True)
            ]
            await register_lpu(clients[0], world)
            await create_project(clients[0], world, project, ["user"])
            created = await clients[0].post(
                f"/api/v1/projects/{project}/deployments",
                json=deployment_body(replicas=2),
                headers=world.user,
            )
            assert created.status_code == 201, created.text
            pods = present(await until(lambda: _two(cluster, project), within=30))
            # The follower learns who holds the Lease on its next try to take it, a moment later.
            (leader,) = present(await until(lambda: _agreed_leader(clients, world), within=15))

            await _turn_off(cluster, project, pods[0])
            await until(lambda: _all_on(cluster, project), within=10)

            # The leader stops without releasing the Lease, as a crashed replica would.
            survivor = clients[1 - leader]
            await apps[leader].state.services.thermal_controller.close(release=False)
            # When exactly the survivor may take over is the elector's test (test_thermal_api).
            await until(lambda: _one_leader([survivor], world), within=10)
            await _turn_off(cluster, project, pods[1])
            await until(lambda: _all_on(cluster, project), within=10)
        # Every replica gone: the pods keep the traffic they had.
        assert set((await _traffic(cluster, project)).values()) == {"on"}
        async with serving(
            create_app(_replica(world, tmp_path / "nufi.db", lease)), client_timeout=30
        ) as last:
            await last.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)
    finally:
        await cluster.close()


async def _two(cluster: ClusterGateway, project: str) -> list[str] | None:
    names = sorted(await _traffic(cluster, project))
    return names if len(names) == 2 else None


async def _all_on(cluster: ClusterGateway, project: str) -> bool:
    labels = await _traffic(cluster, project)
    return bool(labels) and set(labels.values()) == {"on"}
