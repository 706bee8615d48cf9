"""A lab on an origin of its own, as a browser meets it: NuFi's dashboard origin and its labs' hosts
on one loopback port (`Site`, served by `on_own_origins`), and the steps of the lab sign-in (the
dashboard's redirect, the grant, the host-only lab cookie)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import connect
from websockets.typing import Origin

from support.world import World, register_lpu

from .labs_world import lab_settings, running

HTML = {"Accept": "text/html,application/xhtml+xml"}
# Under the lab's path, where each kind's page changes something and opens its WebSocket: Jupyter's
# contents API and a kernel's channels; code-server's key minting and its workbench's socket, named
# by its build's commit (the proxy takes the lab's path off: code-server is asked at its root).
CHANGE_PATHS = {"jupyter": "api/contents/x", "vscode": "mint-key"}
CODE_SERVER_SOCKET = "stable-53c2f3253bcf32886706fc023e794bbeb253c90f"
SOCKET_PATHS = {
    "jupyter": "api/kernels/k/socket",
    "vscode": f"{CODE_SERVER_SOCKET}?reconnectionToken=r&reconnection=false&skipWebSocketFrames=false",
}


class Site:
    """NuFi's dashboard origin and its labs' hosts, all on one loopback port."""

    def __init__(self, url: str, port: int) -> None:
        self.url = url
        self.port = port

    def lab_host(self, project: str, name: str = "lab") -> str:
        return f"{name}--{project}.localhost:{self.port}"

    def lab_origin(self, project: str, name: str = "lab") -> str:
        return f"http://{self.lab_host(project, name)}"


@asynccontextmanager
async def on_own_origins(world: World, lab_server: str, database: Path, **values: Any) -> AsyncIterator[Site]:
    """NuFi on a loopback port with every lab on an origin of its own under `localhost:<port>` (its
    Service reached at `lab_server`), the LPU registered, and settings `values` on top."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings = lab_settings(
        world,
        f"sqlite+aiosqlite:///{database}",
        lab_route="cluster-dns",
        lab_cluster_dns_url=lab_server,
        lab_base_domain=f"localhost:{port}",
        dashboard_public_url=f"http://127.0.0.1:{port}",
        **values,
    )
    async with running(settings, sock=sock) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            await register_lpu(client, world)
        yield Site(url, port)


async def to_grant(
    client: httpx.AsyncClient, site: Site, session: str, project: str, path: str = "tree"
) -> tuple[str, str]:
    """The lab sign-in's first three steps as a browser follows them, from opening the lab on the
    dashboard: the grant's URL on the lab's host (path and query) and the browser's state cookie."""
    opened = await client.get(
        f"/labs/{project}/lab/{path}", headers={**HTML, "Cookie": f"nufi_session={session}"}
    )
    assert opened.status_code == 302, opened.text
    first = urlsplit(opened.headers["location"])
    assert (f"{first.scheme}://{first.netloc}", first.path) == (site.lab_origin(project), "/_nufi/lab-signin")
    started = await client.get(f"{first.path}?{first.query}", headers=on_lab(site, project))
    assert started.status_code == 302, started.text
    name, _, rest = started.headers["set-cookie"].partition("=")
    assert name == "nufi_lab_state"
    state = rest.split(";", 1)[0]
    back = urlsplit(started.headers["location"])
    assert (f"{back.scheme}://{back.netloc}", back.path) == (site.url, "/_nufi/lab-grant")
    granted = await client.get(f"{back.path}?{back.query}", headers={"Cookie": f"nufi_session={session}"})
    assert granted.status_code == 302, granted.text
    last = urlsplit(granted.headers["location"])
    assert (f"{last.scheme}://{last.netloc}", last.path) == (site.lab_origin(project), "/_nufi/lab-signin")
    for step in (opened, started, granted):
        assert session not in step.headers["location"]
    return f"{last.path}?{last.query}", state


async def lab_cookie(
    client: httpx.AsyncClient, site: Site, session: str, project: str, path: str = "tree"
) -> str:
    """Open the lab from the dashboard and go through the lab sign-in: the lab cookie's value."""
    grant_url, state = await to_grant(client, site, session, project, path)
    exchanged = await exchange(client, site, project, grant_url, state)
    name, _, rest = exchanged.headers["set-cookie"].partition("=")
    assert name == "nufi_lab"
    return rest.split(";", 1)[0]


async def exchange(
    client: httpx.AsyncClient, site: Site, project: str, grant_url: str, state: str
) -> httpx.Response:
    """The last step of the lab sign-in: the grant shown at the lab's host with the browser's state."""
    exchanged = await client.get(grant_url, headers=on_lab(site, project, state=state))
    assert exchanged.status_code == 303, exchanged.text
    return exchanged


def grant_refused(answer: httpx.Response) -> None:
    assert answer.status_code == 403, answer.text
    assert answer.json()["type"] == "lab-grant-refused"


def cookie_socket(site: Site, project: str, cookie: str, origin: str, kind: str = "jupyter") -> connect:
    """A WebSocket to `project`'s lab (of `kind`) at the lab's host, with its lab cookie, from `origin`."""
    return connect(
        f"ws://{site.lab_host(project)}/labs/{project}/lab/{SOCKET_PATHS[kind]}",
        host="127.0.0.1",
        port=site.port,
        origin=Origin(origin),
        additional_headers={"Cookie": f"nufi_lab={cookie}"},
    )


def on_lab(
    site: Site, project: str, cookie: str | None = None, *, state: str | None = None, **headers: str
) -> dict[str, str]:
    out = {"Host": site.lab_host(project), **headers}
    cookies = [f"nufi_lab={cookie}"] if cookie is not None else []
    cookies += [f"nufi_lab_state={state}"] if state is not None else []
    if cookies:
        out["Cookie"] = "; ".join(cookies)
    return out
