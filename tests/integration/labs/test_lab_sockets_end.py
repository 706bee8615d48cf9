"""An open lab WebSocket ends with its caller's right to it, as every HTTP request with the same lab
cookie does: on sign-out, when the member is removed, when the lab is deleted, and when the dashboard
session expires (found by the socket's periodic check, NUFI_LAB_SOCKET_CHECK_SECONDS). NuFi on loopback
with labs on their own origins, as in test_lab_origins; the stand-in lab's socket echoes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from nufi.auth.web_sessions import session_hash
from support.polling import eventually, stays_true
from support.world import World, create_project, project_name

from .lab_site import Site, cookie_socket, lab_cookie, on_own_origins
from .labs_world import make_lab
from .sign_in import sign_in

CHECK_SECONDS = 1.0
# Far above the periodic check, far below the 30 s a socket that is never checked would live.
CLOSED_WITHIN = 10.0
POLICY_VIOLATION = 1008


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lab-sockets-db") / "nufi.db"


@pytest.fixture(scope="module")
async def site(world: World, lab_server: str, database: Path) -> AsyncIterator[Site]:
    async with on_own_origins(world, lab_server, database, lab_socket_check_seconds=CHECK_SECONDS) as site:
        yield site


@pytest.fixture
async def project(client: httpx.AsyncClient, world: World) -> AsyncIterator[str]:
    """A project `user` is a member of, with a lab named `lab`."""
    name = project_name()
    await create_project(client, world, name, ["user"])
    await make_lab(client, world, name)
    yield name
    await client.delete(f"/api/v1/admin/projects/{name}", headers=world.admin)


async def echoes(socket_: ClientConnection, text: str) -> None:
    await socket_.send(text)
    assert await socket_.recv() == f"echo: {text}"


async def closed_by_nufi(socket_: ClientConnection) -> None:
    def closed() -> None:
        assert socket_.close_code is not None, "the socket is still open"

    await eventually(closed, within=CLOSED_WITHIN)
    assert socket_.close_code == POLICY_VIOLATION


async def opened(client: httpx.AsyncClient, site: Site, project: str) -> tuple[str, str]:
    """`user`'s dashboard session and the lab cookie it earned for `project`'s lab."""
    session = await sign_in(client, "user", "user")
    return session, await lab_cookie(client, site, session, project)


async def test_a_lab_socket_closes_when_its_dashboard_session_signs_out(
    client: httpx.AsyncClient, site: Site, project: str
) -> None:
    session, cookie = await opened(client, site, project)
    async with cookie_socket(site, project, cookie, site.lab_origin(project)) as socket_:
        assert json.loads(await socket_.recv())["path"].endswith("/api/kernels/k/socket")
        await echoes(socket_, "before")
        out = await client.post(
            "/auth/logout", headers={"Cookie": f"nufi_session={session}", "Origin": site.url}
        )
        assert out.status_code in (302, 303), out.text
        await closed_by_nufi(socket_)


async def test_a_lab_socket_closes_when_its_member_is_removed(
    client: httpx.AsyncClient, site: Site, world: World, project: str
) -> None:
    _, cookie = await opened(client, site, project)
    async with cookie_socket(site, project, cookie, site.lab_origin(project)) as socket_:
        await socket_.recv()
        await echoes(socket_, "before")
        removed = await client.delete(f"/api/v1/admin/projects/{project}/members/user", headers=world.admin)
        assert removed.status_code in (200, 204), removed.text
        await closed_by_nufi(socket_)


async def test_a_lab_socket_closes_when_its_lab_is_deleted(
    client: httpx.AsyncClient, site: Site, world: World, project: str
) -> None:
    _, cookie = await opened(client, site, project)
    async with cookie_socket(site, project, cookie, site.lab_origin(project)) as socket_:
        await socket_.recv()
        deleted = await client.delete(f"/api/v1/projects/{project}/labs/lab", headers=world.user)
        assert deleted.status_code == 204, deleted.text
        await closed_by_nufi(socket_)


async def test_a_lab_socket_closes_when_its_dashboard_session_expires(
    client: httpx.AsyncClient, site: Site, database: Path, project: str
) -> None:
    session, cookie = await opened(client, site, project)
    async with cookie_socket(site, project, cookie, site.lab_origin(project)) as socket_:
        await socket_.recv()
        await echoes(socket_, "before")
        # The session ends by its time alone: nothing in the process says so, the periodic check finds it.
        with sqlite3.connect(database) as connection:
            changed = connection.execute(
                "UPDATE web_sessions SET expires_at = '2000-01-01 00:00:00.000000' WHERE id_hash = ?",
                (session_hash(session),),
            ).rowcount
        assert changed == 1
        await closed_by_nufi(socket_)


async def test_a_lab_socket_stays_open_while_its_session_and_membership_hold(
    client: httpx.AsyncClient, site: Site, project: str
) -> None:
    _, cookie = await opened(client, site, project)
    async with cookie_socket(site, project, cookie, site.lab_origin(project)) as socket_:
        await socket_.recv()
        await stays_true(lambda: socket_.close_code is None, for_seconds=3 * CHECK_SECONDS)
        await echoes(socket_, "after three checks")
