"""The server's lifespan: the database is migrated at start, joins /readyz and is released at stop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from sqlalchemy import inspect, make_url
from sqlalchemy.pool import QueuePool

from nufi.api import create_app
from nufi.config import Settings
from nufi.db import Database, DeviceTypeRepository, head_revision
from nufi.errors import DependencyUnavailable
from nufi.services import Services as AppServices
from support.asgi import serving as serve_app

# SQLAlchemy warns about session misuse (e.g. stale identities) instead of failing; here it fails.
pytestmark = [
    pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning"),
    pytest.mark.usefixtures("clean_env"),
]


@asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[tuple[httpx.AsyncClient, AppServices]]:
    async with serve_app(app) as client:
        yield client, app.state.services


async def table_names(url: str) -> set[str]:
    db = Database.from_url(url)
    try:
        async with db.engine.connect() as connection:
            return set(await connection.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await db.close()


async def test_the_schema_is_migrated_at_start_and_the_database_is_ready(database_url: str) -> None:
    app = create_app(Settings(database_url=SecretStr(database_url)))
    async with serving(app) as (client, services):
        response = await client.get("/readyz")
        assert await services.database.current_revision() == head_revision()
        async with services.database.session() as session:
            assert await DeviceTypeRepository(session).list() == []
    assert response.status_code == 200
    by_name = {d["name"]: d for d in response.json()["dependencies"]}
    database = by_name["database"]
    assert (database["configured"], database["ok"]) == (True, True)
    assert "SELECT 1" in database["detail"]


async def test_migration_at_start_can_be_turned_off(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUFI_DATABASE_URL", database_url)
    monkeypatch.setenv("NUFI_DATABASE_MIGRATE_ON_START", "false")
    app = create_app()
    async with serving(app) as (client, services):
        response = await client.get("/readyz")
        assert await services.database.current_revision() is None
    assert response.status_code == 200
    assert "device_types" not in await table_names(database_url)


async def test_an_unreachable_database_makes_the_server_unready(unused_tcp_port: int) -> None:
    url = f"postgresql+asyncpg://nufi:s3cret-pw@127.0.0.1:{unused_tcp_port}/nufi"
    app = create_app(Settings(database_url=SecretStr(url), database_migrate_on_start=False))
    async with serving(app) as (client, _):
        response = await client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert "database" in body["detail"]
    assert "s3cret-pw" not in response.text
    database = {d["name"]: d for d in body["dependencies"]}["database"]
    assert (database["configured"], database["ok"]) == (True, False)


async def test_an_unreachable_database_stops_a_migrating_start(unused_tcp_port: int) -> None:
    url = f"postgresql+asyncpg://nufi@127.0.0.1:{unused_tcp_port}/nufi"
    app = create_app(Settings(database_url=SecretStr(url)))
    with pytest.raises(DependencyUnavailable) as caught:
        async with serving(app):
            pass
    assert caught.value.dependency == "database"


async def test_the_servers_own_engine_is_released_at_stop(database_url: str) -> None:
    app = create_app(Settings(database_url=SecretStr(database_url)))
    async with serving(app) as (client, services):
        await client.get("/readyz")
        pool = services.database.engine.pool
        assert isinstance(pool, QueuePool)
        assert pool.checkedin() >= 1
    # dispose() closes every pooled connection.
    assert pool.checkedin() == 0


async def test_a_database_passed_in_stays_open_for_its_owner(database_url: str) -> None:
    owned = Database.from_url(database_url)
    try:
        app = create_app(Settings(database_url=SecretStr("sqlite+aiosqlite:///unused.db")), database=owned)
        async with serving(app) as (_, services):
            assert services.database is owned
        assert make_url(database_url).get_backend_name() in owned.url
        # Still usable: the app did not dispose it, and it migrated it.
        assert await owned.current_revision() == head_revision()
        pool = owned.engine.pool
        assert isinstance(pool, QueuePool) and pool.checkedin() >= 1
    finally:
        await owned.close()
