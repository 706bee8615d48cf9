"""`kill -9` in the middle of writes: `nufi serve` runs as a process against the dev cluster while a
member and an admin create and delete projects, deployments and labs; the process is killed at a
random moment (seeded), started again, and left to settle what it had begun. At the end every NuFi
namespace, Deployment and lab has the audit record of its creation, no intent is left open, and no
part of a lab or deployment is left that a member cannot delete (delete answers 204, never 404, and
the same name can be made again).

`NUFI_CRASH_ROUNDS` (default 1 on each database) and `NUFI_CRASH_SEED` change
the run; `make crash` runs many more rounds."""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from nufi.db import create_database_engine
from nufi.errors import DependencyUnavailable
from support.dev_cluster import DEV_HEADERS
from support.http_fault import Fault, HttpFault, through
from support.nufi_serve import KillableServer
from support.polling import eventually, holds, until
from support.world import World, deployment_body, register_lpu

ROUNDS = int(os.environ.get("NUFI_CRASH_ROUNDS", "1"))
SEED = int(os.environ.get("NUFI_CRASH_SEED", "23"))
# Short, so a restarted server settles what the killed one left within the test; still longer than
# any request here takes, so no request of the new server is settled under its feet.
SETTLE_AFTER_SECONDS = 3.0
WRITERS = 4
LAB = "nufi.io/workload-kind=lab"
DEPLOYMENT = "nufi.io/workload-kind=deployment"
NUFI_MADE = "app.kubernetes.io/managed-by=nufi"


@asynccontextmanager
async def client(url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        yield http


class Writer:
    """A member and an admin at work: a random stream of project, deployment and lab changes."""

    def __init__(self, world: World, rng: random.Random, tag: str) -> None:
        self._world = world
        self._rng = rng
        self._tag = tag
        self.projects: list[str] = []
        self._count = 0

    def _new(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    async def run(self, http: httpx.AsyncClient) -> None:
        """Until the server dies under it."""
        with suppress(httpx.TransportError):
            while True:
                await self.one(http)

    async def one(self, http: httpx.AsyncClient) -> None:
        admin, user = self._world.admin, self._world.user
        choice = self._rng.random()
        if not self.projects or choice < 0.2:
            name = f"k-{self._tag}-{self._new('p')}"
            self.projects.append(name)
            await http.post("/api/v1/admin/projects", json={"name": name, "members": ["user"]}, headers=admin)
            return
        project = self._rng.choice(self.projects)
        labs = f"/api/v1/projects/{project}/labs"
        deployments = f"/api/v1/projects/{project}/deployments"
        name = f"w{self._rng.randrange(4)}"
        if choice < 0.45:
            await http.post(labs, json=_lab(name), headers=user)
        elif choice < 0.6:
            await http.delete(f"{labs}/{name}", headers=user)
        elif choice < 0.8:
            await http.post(deployments, json=deployment_body(name, replicas=1), headers=user)
        elif choice < 0.9:
            await http.delete(f"{deployments}/{name}", headers=user)
        else:
            await http.put(f"/api/v1/admin/projects/{project}/members/u{self._count}", headers=admin)


def _lab(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "jupyter",
        "accelerator": {"device_type": "lpu", "count": 1},
        "storage_gib": 1,
    }


async def open_intents(database_url: str) -> int | None:
    """How many intents are open; None when the database keeps none (no such table)."""
    engine = create_database_engine(database_url)
    try:
        async with engine.connect() as connection:
            return int((await connection.execute(text("SELECT count(*) FROM intents"))).scalar_one())
    except (DBAPIError, DependencyUnavailable):
        return None
    finally:
        await engine.dispose()


async def settled(database_url: str, within: float = 30.0) -> None:
    async def none_open() -> bool:
        return await open_intents(database_url) in (0, None)

    await until(none_open, within=within, every=0.2, what="every open intent settled")


async def audited(http: httpx.AsyncClient, world: World, kind: str, target: str, action: str) -> bool:
    answer = await http.get(
        "/api/v1/admin/audit", params={"target_kind": kind, "target_id": target}, headers=world.admin
    )
    assert answer.status_code == 200, answer.text
    return any(record["action"] == action for record in answer.json()["items"])


async def listed(kube: httpx.AsyncClient, path: str, selector: str) -> list[dict[str, Any]]:
    answer = await kube.get(path, params={"labelSelector": selector})
    if answer.status_code == 404:
        return []
    answer.raise_for_status()
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


def _workload(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["labels"]["nufi.io/workload"])


async def test_kill_9_mid_write_leaves_every_object_audited_and_deletable(
    world: World, database_url: str, tmp_path: Path
) -> None:
    rng = random.Random(f"{SEED}-{database_url.split(':')[0]}")
    env = {
        "NUFI_KUBECONFIG": str(world.cluster.kubeconfig),
        "NUFI_PROMETHEUS_URL": world.prometheus.url,
        "NUFI_DATABASE_URL": database_url,
        "NUFI_OIDC_ISSUER": world.idp.issuer,
        "NUFI_THERMAL_ENABLED": "false",
        "NUFI_LOG_FORMAT": "json",
        "NUFI_INTENT_SETTLE_AFTER_SECONDS": str(SETTLE_AFTER_SECONDS),
        "NUFI_INTENT_RECONCILE_INTERVAL_SECONDS": "0.5",
    }
    server = KillableServer(tmp_path, env)
    writer = Writer(world, rng, uuid.uuid4().hex[:5])
    kube = httpx.AsyncClient(base_url=world.cluster.url, headers=DEV_HEADERS, timeout=10)
    try:
        rounds = ROUNDS if database_url.startswith("sqlite") else max(1, ROUNDS // 2)
        for round_ in range(rounds):
            async with client(server.start()) as http:
                if round_ == 0:
                    await register_lpu(http, world)
                await settled(database_url)
                # Several at once, so that whenever the kill comes some write is half-way.
                work = asyncio.gather(*(writer.run(http) for _ in range(WRITERS)))
                await asyncio.sleep(rng.uniform(0.3, 1.5))
                server.kill()
                await work
        async with client(server.start()) as http:
            await settled(database_url)
            broken = await _check(http, kube, world, writer.projects, database_url)
            assert broken == [], "\n".join(broken)
    finally:
        server.kill()
        for project in writer.projects:
            await kube.delete(f"/api/v1/namespaces/{project}")
        await kube.aclose()


async def _check(
    http: httpx.AsyncClient, kube: httpx.AsyncClient, world: World, projects: list[str], database_url: str
) -> list[str]:
    """Every promise; each broken one named (all of them, not only the first)."""
    namespaces = {
        ns["metadata"]["name"]
        for ns in await listed(kube, "/api/v1/namespaces", NUFI_MADE)
        if ns["metadata"]["name"] in projects
    }
    assert namespaces, "no project was made before the first kill; raise the delay"
    broken: list[str] = []
    for project in sorted(namespaces):
        if not await audited(http, world, "project", project, "project.create"):
            broken.append(f"namespace {project} has no audit record of its creation")
        base = f"/api/v1/namespaces/{project}"
        deployments = {
            _workload(d)
            for d in await listed(kube, f"/apis/apps/v1/namespaces/{project}/deployments", DEPLOYMENT)
        }
        for name in sorted(deployments):
            if not await audited(http, world, "deployment", f"{project}/{name}", "deployment.create"):
                broken.append(f"deployment {project}/{name} has no audit record of its creation")
        lab_tops = {
            _workload(s) for s in await listed(kube, f"/apis/apps/v1/namespaces/{project}/statefulsets", LAB)
        }
        for name in sorted(lab_tops):
            if not await audited(http, world, "lab", f"{project}/{name}", "lab.create"):
                broken.append(f"lab {project}/{name} has no audit record of its creation")
        # Every lab a member may have to delete, whole or in parts: delete, make again, delete.
        lab_parts = lab_tops | {
            _workload(o)
            for path in (f"{base}/services", f"{base}/persistentvolumeclaims")
            for o in await listed(kube, path, LAB)
        }
        for name in sorted(lab_parts):
            labs = f"/api/v1/projects/{project}/labs"
            gone = await http.delete(f"{labs}/{name}", headers=world.user)
            if gone.status_code != 204:
                broken.append(
                    f"lab {project}/{name} (tops {sorted(lab_tops)}): delete answered {gone.status_code}"
                )
                continue
            again = await http.post(labs, json=_lab(name), headers=world.user)
            if again.status_code != 201:
                broken.append(f"lab {project}/{name}: made again, answered {again.status_code} {again.text}")
                continue
            assert (await http.delete(f"{labs}/{name}", headers=world.user)).status_code == 204
        services = {_workload(s) for s in await listed(kube, f"{base}/services", DEPLOYMENT)}
        broken += [
            f"Service {project}/{name} belongs to no deployment" for name in sorted(services - deployments)
        ]
        for name in sorted(deployments):
            path = f"/api/v1/projects/{project}/deployments"
            assert (await http.delete(f"{path}/{name}", headers=world.user)).status_code == 204
            again = await http.post(path, json=deployment_body(name, replicas=1), headers=world.user)
            if again.status_code != 201:
                broken.append(f"deployment {project}/{name}: made again, answered {again.status_code}")
    if await open_intents(database_url) != 0:
        broken.append("intents left open after reconciliation")
    return broken


def _second_writes(method: str, path: str) -> bool:
    """A project's RoleBinding (after its namespace), a lab's or a deployment's Service (after the
    object written before it)."""
    plain = path.split("?")[0]
    return method == "POST" and (plain.endswith("/rolebindings") or plain.endswith("/services"))


def _env_through(world: World, kubeconfig: Path, database_url: str) -> dict[str, str]:
    """The server's settings, its cluster reached through `kubeconfig` (the faulty proxy)."""
    return {
        "NUFI_KUBECONFIG": str(kubeconfig),
        "NUFI_PROMETHEUS_URL": world.prometheus.url,
        "NUFI_DATABASE_URL": database_url,
        "NUFI_OIDC_ISSUER": world.idp.issuer,
        "NUFI_THERMAL_ENABLED": "false",
        "NUFI_LOG_FORMAT": "json",
        # So that each project gets a RoleBinding, as in a cluster.
        "NUFI_PROJECT_SERVICE_ACCOUNT": "default/nufi",
        "NUFI_KUBE_TIMEOUT_SECONDS": "60",
        "NUFI_INTENT_SETTLE_AFTER_SECONDS": str(SETTLE_AFTER_SECONDS),
        "NUFI_INTENT_RECONCILE_INTERVAL_SECONDS": "0.5",
    }


async def _missing_role_binding(kube: httpx.AsyncClient, project: str) -> list[str]:
    """The project's namespace, if it was made, has NuFi's RoleBinding."""
    if (await kube.get(f"/api/v1/namespaces/{project}")).status_code != 200:
        return []
    bindings = await kube.get(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{project}/rolebindings")
    if [b["metadata"]["name"] for b in bindings.json()["items"]] != ["nufi-workload-manager"]:
        return [f"namespace {project} has no RoleBinding for NuFi"]
    return []


async def test_kill_9_between_the_writes_of_a_change(world: World, tmp_path: Path) -> None:
    """The kill lands, every time, after a change's first cluster write and before its second: a
    project's namespace is made and its RoleBinding held back, a lab's first object is made and its
    Service held back, a Deployment is made and its Service held back."""
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"
    proxy = await HttpFault(world.cluster.url).start()
    kubeconfig = through(proxy, Path(world.cluster.kubeconfig), tmp_path / "kubeconfig")
    env = _env_through(world, kubeconfig, database_url)
    server = KillableServer(tmp_path, env)
    tag = uuid.uuid4().hex[:5]
    first, second = f"k-{tag}-a", f"k-{tag}-b"
    kube = httpx.AsyncClient(base_url=world.cluster.url, headers=DEV_HEADERS, timeout=10)
    try:
        async with client(server.start()) as http:
            await register_lpu(http, world)
            made = await http.post(
                "/api/v1/admin/projects", json={"name": first, "members": ["user"]}, headers=world.admin
            )
            assert made.status_code == 201, made.text
            fault = Fault(delay=120, matches=_second_writes)
            proxy.set(fault)
            writes = asyncio.gather(
                http.post(
                    "/api/v1/admin/projects", json={"name": second, "members": ["user"]}, headers=world.admin
                ),
                http.post(f"/api/v1/projects/{first}/labs", json=_lab("lab"), headers=world.user),
                http.post(
                    f"/api/v1/projects/{first}/deployments",
                    json=deployment_body("llm", replicas=1),
                    headers=world.user,
                ),
                return_exceptions=True,
            )
            await eventually(
                lambda: holds(fault.hits >= 3, f"only {fault.hits} second writes reached the cluster"),
                within=30,
            )
            server.kill()
            await writes
        proxy.set(None)
        async with client(server.start()) as http:
            await settled(database_url)
            broken = await _missing_role_binding(kube, second)
            broken += await _check(http, kube, world, [first, second], database_url)
            assert broken == [], "\n".join(broken)
    finally:
        server.kill()
        proxy.set(None)
        for project in (first, second):
            await kube.delete(f"/api/v1/namespaces/{project}")
        await kube.aclose()
        await proxy.close()


async def test_a_killed_replicas_change_is_audited_as_soon_as_its_lease_runs_out(
    world: World, tmp_path: Path
) -> None:
    """The intents of a replica known to have stopped are settled at once, not after
    NUFI_INTENT_SETTLE_AFTER_SECONDS: with its default of 120 s, the restarted server audits the
    project the killed one was half-way through within its lease of one second and a pass."""
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"
    proxy = await HttpFault(world.cluster.url).start()
    kubeconfig = through(proxy, Path(world.cluster.kubeconfig), tmp_path / "kubeconfig")
    env = {
        **_env_through(world, kubeconfig, database_url),
        "NUFI_INTENT_SETTLE_AFTER_SECONDS": "120",
        "NUFI_INTENT_RECONCILE_INTERVAL_SECONDS": "30",
        "NUFI_INTENT_LEASE_SECONDS": "1",
    }
    server = KillableServer(tmp_path, env)
    project = f"k-{uuid.uuid4().hex[:5]}-lease"
    kube = httpx.AsyncClient(base_url=world.cluster.url, headers=DEV_HEADERS, timeout=10)
    try:
        async with client(server.start()) as http:
            fault = Fault(delay=120, matches=_second_writes)
            proxy.set(fault)
            body = {"name": project, "members": []}
            made = asyncio.ensure_future(http.post("/api/v1/admin/projects", json=body, headers=world.admin))
            await eventually(lambda: holds(fault.hits >= 1, "the RoleBinding's write not reached"), within=30)
            assert await open_intents(database_url) == 1
            server.kill()
            with suppress(httpx.TransportError):
                await made
        proxy.set(None)
        async with client(server.start()) as http:

            async def recorded() -> bool:
                return await audited(http, world, "project", project, "project.create")

            # Well within the 120 s an intent of a replica that may still be alive waits.
            await until(recorded, within=30, every=0.2, what=f"the audit record of {project}'s creation")
            assert await open_intents(database_url) == 0
            assert await _missing_role_binding(kube, project) == []
    finally:
        server.kill()
        proxy.set(None)
        await kube.delete(f"/api/v1/namespaces/{project}")
        await kube.aclose()
        await proxy.close()
