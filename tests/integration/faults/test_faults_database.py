"""The database unavailable or locked: a 503 problem naming it, with Retry-After — never a 500 —,
nothing half-written, and service again as soon as it is back, without restarting NuFi."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import make_url, text

from nufi.cluster import ClusterGateway
from nufi.cluster.namespaces import get_namespace
from nufi.config import Settings
from nufi.db import create_database_engine, create_session_factory, transaction
from nufi.thermal.policy import ThermalPolicy
from nufi_sandbox.postgres import PostgresServer
from support.tcp_fault import TcpFault
from support.world import World, serve

POLICY: dict[str, Any] = {
    "enabled": False,
    "trip_celsius": 85,
    "resume_celsius": 75,
    "trip_hold_seconds": 10,
    "resume_hold_seconds": 30,
    "scope": "node",
    "allow_full_shutoff": False,
    "taint_node": False,
    "overrides_may_disable": False,
    "override_max_trip_celsius": None,
    # Health, the custom condition and the breaker at their defaults.
    **{name: ThermalPolicy().model_dump()[name] for name in ("unhealthy", "custom", "breaker")},
}
TYPE = "nvidia-gpu"


def assert_database_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["retry-after"] == "2"
    body = response.json()
    assert body["dependency"] == "database" and body["retry_after_seconds"] == 2, body
    assert "retry in 2 s" in body["detail"].lower(), body


async def policy(nufi: httpx.AsyncClient, world: World) -> dict[str, Any]:
    listed = await nufi.get("/api/v1/thermal/policies", headers=world.user)
    assert listed.status_code == 200, listed.text
    (found,) = [item for item in listed.json()["items"] if item["device_type"] == TYPE]
    return dict(found["policy"])


@pytest.fixture
async def through_a_cut(postgres: PostgresServer) -> AsyncIterator[tuple[TcpFault, str]]:
    """A database of its own on the real PostgreSQL, reached through a connection that can be cut."""
    name = f"faults_{uuid.uuid4().hex[:8]}"
    postgres.psql(f"CREATE DATABASE {name}")
    fault = await TcpFault(postgres.port).start()
    url = make_url(postgres.sqlalchemy_url).set(port=fault.port, database=name)
    try:
        yield fault, url.render_as_string(hide_password=False)
    finally:
        await fault.close()
        postgres.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


async def test_postgresql_gone_is_a_503_with_retry_after_and_service_resumes_when_it_is_back(
    world: World, through_a_cut: tuple[TcpFault, str]
) -> None:
    fault, url = through_a_cut
    async with serve(world.settings(url)) as nufi:
        saved = await nufi.put(f"/api/v1/admin/thermal/policies/{TYPE}", json=POLICY, headers=world.admin)
        assert saved.status_code == 200, saved.text

        await fault.cut()
        assert_database_unavailable(await nufi.get("/api/v1/thermal/policies", headers=world.user))
        changed = {**POLICY, "trip_celsius": 90}
        refused = await nufi.put(f"/api/v1/admin/thermal/policies/{TYPE}", json=changed, headers=world.admin)
        assert_database_unavailable(refused)

        await fault.restore()
        # The same process serves again, and the refused change left nothing behind.
        assert await policy(nufi, world) == POLICY
        again = await nufi.put(f"/api/v1/admin/thermal/policies/{TYPE}", json=changed, headers=world.admin)
        assert again.status_code == 200, again.text
        assert (await policy(nufi, world))["trip_celsius"] == 90


async def test_a_project_whose_creation_cannot_be_recorded_is_not_created(
    world: World, through_a_cut: tuple[TcpFault, str]
) -> None:
    fault, url = through_a_cut
    name = f"p-{uuid.uuid4().hex[:8]}"
    async with serve(world.settings(url)) as nufi:
        await fault.cut()
        refused = await nufi.post(
            "/api/v1/admin/projects", json={"name": name, "members": ["user"]}, headers=world.admin
        )
        assert_database_unavailable(refused)
        # The namespace it made first is gone again: the cluster is as it was.
        cluster = ClusterGateway.from_settings(Settings(kubeconfig=world.cluster.kubeconfig))
        try:
            assert await get_namespace(cluster, name) is None
        finally:
            await cluster.close()
        await fault.restore()
        created = await nufi.post(
            "/api/v1/admin/projects", json={"name": name, "members": ["user"]}, headers=world.admin
        )
        assert created.status_code == 201, created.text
        await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


async def test_project_changes_that_cannot_be_recorded_are_not_made(
    world: World, through_a_cut: tuple[TcpFault, str]
) -> None:
    fault, url = through_a_cut
    name = f"p-{uuid.uuid4().hex[:8]}"
    cluster = ClusterGateway.from_settings(Settings(kubeconfig=world.cluster.kubeconfig))
    async with serve(world.settings(url)) as nufi:
        created = await nufi.post(
            "/api/v1/admin/projects", json={"name": name, "members": ["user"]}, headers=world.admin
        )
        assert created.status_code == 201, created.text
        try:
            await fault.cut()
            members = f"/api/v1/admin/projects/{name}/members"
            assert_database_unavailable(await nufi.put(f"{members}/someone", headers=world.admin))
            assert_database_unavailable(await nufi.delete(f"{members}/user", headers=world.admin))
            assert_database_unavailable(
                await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)
            )
            # Each was refused before it was made: the namespace is there, its members as they were.
            namespace = await get_namespace(cluster, name)
            assert namespace is not None
            assert namespace["metadata"]["annotations"]["nufi.io/members"] == '["user"]'

            await fault.restore()
            audit = await nufi.get(
                "/api/v1/admin/audit", params={"target_kind": "project"}, headers=world.admin
            )
            assert [r["action"] for r in audit.json()["items"] if r["target_id"] == name] == [
                "project.create"
            ]
            added = await nufi.put(f"{members}/someone", headers=world.admin)
            assert added.status_code == 200, added.text
        finally:
            await nufi.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)
            await cluster.close()


async def test_a_sqlite_file_locked_by_another_program_refuses_writes_with_503_and_keeps_serving_reads(
    world: World, tmp_path: Path
) -> None:
    database = tmp_path / "nufi.db"
    async with serve(world.settings(f"sqlite+aiosqlite:///{database}")) as nufi:
        saved = await nufi.put(f"/api/v1/admin/thermal/policies/{TYPE}", json=POLICY, headers=world.admin)
        assert saved.status_code == 200, saved.text

        # Another program takes the write lock and keeps it past NuFi's busy timeout.
        holder = sqlite3.connect(database, isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            changed = {**POLICY, "trip_celsius": 90}
            refused = await nufi.put(
                f"/api/v1/admin/thermal/policies/{TYPE}", json=changed, headers=world.admin
            )
            assert_database_unavailable(refused)
            assert "locked" in refused.json()["detail"]
            # WAL: readers do not wait for a writer.
            assert await policy(nufi, world) == POLICY
        finally:
            holder.rollback()
            holder.close()

        again = await nufi.put(f"/api/v1/admin/thermal/policies/{TYPE}", json=changed, headers=world.admin)
        assert again.status_code == 200, again.text
        assert (await policy(nufi, world))["trip_celsius"] == 90


async def test_a_statement_cancelled_while_it_waits_stays_cancelled(tmp_path: Path) -> None:
    # Translation is for failures: a task being stopped (a loop at shutdown) must see its cancellation.
    database = tmp_path / "cancel.db"
    engine = create_database_engine(f"sqlite+aiosqlite:///{database}")
    try:
        async with engine.begin() as connection:
            await connection.execute(text("CREATE TABLE t (x INTEGER)"))
        holder = sqlite3.connect(database, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            sessions = create_session_factory(engine)

            async def write() -> None:
                async with transaction(sessions) as session:
                    await session.execute(text("INSERT INTO t VALUES (1)"))

            waiting = asyncio.ensure_future(write())
            # Inside SQLite's busy wait (5 s) by then.
            await asyncio.sleep(0.5)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
        finally:
            holder.rollback()
            holder.close()
    finally:
        await engine.dispose()
