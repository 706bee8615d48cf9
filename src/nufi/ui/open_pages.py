"""The dashboard's open pages on the server: who each was opened for, how many one session may keep,
and the check that every action of a page makes of its session when it runs.

NiceGUI builds a page on the server for every GET and keeps it (a `Client`) until its browser has
been gone for a while; a page whose browser never connects was kept a whole minute, so plain GETs
alone could fill the server. Here a page that no browser connects to within UNCONNECTED_SECONDS is
deleted, and one session keeps at most MAX_PAGES_PER_SESSION (the oldest unconnected go first).

A page was built for the principal its session had then; a click may come hours later. Every event
a browser sends (a click, a dialog's submit, a value typed) therefore resolves the page's session
again before anything runs: a session ended (signed out, in any tab or replica), expired, or whose
refreshed token lacks a role the page was built with, gets no action; its page is sent to sign in
and deleted on the server, its socket disconnected. Events of one page are checked and run in the
order they came (a value typed, then the button that saves it). Work a page starts on its own (a
timer that writes) must ask `acting()` first, as the periodic session check does.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from nicegui import background_tasks, core, ui
from nicegui.client import Client
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from starlette.requests import Request

from nufi.auth import Principal
from nufi.auth.web_sessions import session_hash
from nufi.ui import context
from nufi.ui.signin import SESSION_COOKIE, sign_in_url

# A browser connects to the page it loaded within a second or two; a GET nobody follows up is let go.
UNCONNECTED_SECONDS = 8.0
# Tabs one person has open at once, with room to spare; beyond it the oldest unconnected go first.
MAX_PAGES_PER_SESSION = 16
# How often an open page's session is checked though no one acts on it (its tokens refreshed too).
SESSION_CHECK_SECONDS = 30.0
# Long enough for the order to go to sign in to reach the browser before its page is deleted.
CLOSE_GRACE_SECONDS = 1.0


@dataclass(eq=False)
class OpenPage:
    client: Client
    owner: str
    principal: Principal
    path: str
    created: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    closing: bool = False


_pages: dict[str, OpenPage] = {}
_by_owner: dict[str, dict[str, OpenPage]] = {}


def owner_of(request: Request, principal: Principal) -> str:
    """The session a page belongs to (its cookie's hash), or its person when there is no cookie
    (the simulated-user tests name the person in a header)."""
    session_id = request.cookies.get(SESSION_COOKIE)
    return f"session:{session_hash(session_id)}" if session_id else f"subject:{principal.subject}"


def opened(client: Client, request: Request, principal: Principal, path: str) -> OpenPage:
    """Remember the page being built in `client`, for `principal`, and bound what its session keeps."""
    page = OpenPage(client, owner_of(request, principal), principal, path)
    _pages[client.id] = page
    _by_owner.setdefault(page.owner, {})[client.id] = page
    client.on_delete(lambda: _forget(page))
    _cap(page)
    background_tasks.create(_watch(page), name=f"watch page {client.id}")
    return page


def socket_for(client_id: str, session_id: str | None) -> Literal["its own", "another's", "none here"]:
    """Whose page a socket naming `client_id` would talk to: "its own" (a live page built for the
    session `session_id` names; a page built for a person named in a header, as the simulated-user
    tests do, by its id alone), "another's" (a live page of another session), or "none here"."""
    page = _pages.get(client_id)
    if page is None or page.closing or page.client.is_deleted:
        return "none here"
    if not page.owner.startswith("session:"):
        return "its own"
    mine = session_id is not None and page.owner == f"session:{session_hash(session_id)}"
    return "its own" if mine else "another's"


def client_ids() -> frozenset[str]:
    """The client ids of the pages kept now."""
    return frozenset(_pages)


def discard(client: Client) -> None:
    """A page that is answered with a redirect instead (not signed in): nothing to keep."""
    asyncio.get_running_loop().call_soon(_delete, client)


async def acting(client: Client) -> Principal | None:
    """The principal to act for on `client`'s page, resolved now; None, and the page closed, when
    its session ended or no longer carries what the page was built with. Pages not opened through
    `opened` (none of the dashboard's) are let be: None."""
    page = _pages.get(client.id)
    if page is None:
        return None
    async with page.lock:
        return await _recheck(page)


async def _recheck(page: OpenPage) -> Principal | None:
    if page.closing or page.client.is_deleted:
        return None
    request = page.client.request
    fresh = await context.principal(request) if request is not None else None
    if fresh is None or fresh.subject != page.principal.subject or not page.principal.roles <= fresh.roles:
        close(page)
        return None
    return fresh


def close(page: OpenPage) -> None:
    """Send the page's browser to sign in (and back to the page), then delete the page on the
    server and disconnect its socket; no event of it runs any more."""
    page.closing = True
    client = page.client
    if client.is_deleted or Client.instances.get(client.id) is not client:
        _forget(page)
        return
    if not client.has_socket_connection:
        _delete(client)
        return
    with client:
        ui.navigate.to(sign_in_url(page.path))
    background_tasks.create(_delete_after(client, CLOSE_GRACE_SECONDS), name=f"close page {client.id}")


async def _delete_after(client: Client, seconds: float) -> None:
    await asyncio.sleep(seconds)
    sockets = list(client._socket_to_document_id)  # NiceGUI has no public list of them
    _delete(client)
    for socket_id in sockets:
        with contextlib.suppress(Exception):
            await core.sio.disconnect(socket_id)


def _delete(client: Client) -> None:
    # Not among NiceGUI's clients any more: gone already (NiceGUI's test harness clears them).
    if not client.is_deleted and Client.instances.get(client.id) is client:
        client.delete()


def _forget(page: OpenPage) -> None:
    _pages.pop(page.client.id, None)
    owned = _by_owner.get(page.owner)
    if owned is not None:
        owned.pop(page.client.id, None)
        if not owned:
            _by_owner.pop(page.owner, None)


def _cap(newest: OpenPage) -> None:
    owned = _by_owner.get(newest.owner, {})
    while len(owned) > MAX_PAGES_PER_SESSION:
        others = sorted((p for p in owned.values() if p is not newest), key=lambda p: p.created)
        unconnected = [p for p in others if not p.client.has_socket_connection]
        victim = (unconnected or others)[0]
        victim.closing = True
        _forget(victim)
        # Its session still holds: no sign-in for it. A browser still on it finds its page gone
        # when it next talks to the server, and NiceGUI's script then loads the page afresh.
        if victim.client.has_socket_connection:
            background_tasks.create(
                _delete_after(victim.client, 0), name=f"let go of page {victim.client.id}"
            )
        else:
            _delete(victim.client)


async def _watch(page: OpenPage) -> None:
    """Delete the page if no browser connects to it soon; then, while it lives, check its session
    every SESSION_CHECK_SECONDS (closing it when the session ended). No `ui.timer`: one would make
    NiceGUI answer the GET before the page is built (a timer waits for the browser to connect)."""
    client = page.client
    await asyncio.sleep(UNCONNECTED_SECONDS)
    # A page whose browser came and went is NiceGUI's to delete after its reconnect timeout.
    if not client.is_deleted and not client.has_socket_connection and not client._delete_tasks:
        _delete(client)
    while not client.is_deleted and not page.closing:
        await asyncio.sleep(SESSION_CHECK_SECONDS)
        if client.is_deleted:
            return
        await acting(client)


def install() -> None:
    """Check every browser event of a dashboard page (see the module's doc) before NiceGUI runs it.
    Once per process; NiceGUI's socket server is one per process too."""
    handlers = core.sio.handlers.setdefault("/", {})
    original = handlers.get("event")
    if original is None or getattr(original, "nufi_checked", False):
        return

    async def checked(socket_id: str, message: Any) -> None:
        page = _pages.get(str(message.get("client_id"))) if isinstance(message, dict) else None
        if page is None:
            original(socket_id, message)
            return
        async with page.lock:  # the first await: events queue in the order they arrived
            if await _recheck(page) is not None:
                original(socket_id, message)

    checked.nufi_checked = True  # type: ignore[attr-defined]
    core.sio.on("event", checked)


def live_pages() -> Iterator[Client]:
    return iter(list(Client.instances.values()))


class PagesCollector(Collector):
    """`nufi_dashboard_pages`: the dashboard pages this replica keeps, connected or not."""

    def collect(self) -> Iterator[Metric]:
        gauge = GaugeMetricFamily(
            "nufi_dashboard_pages",
            "Dashboard pages kept on this replica, by whether a browser is connected to them.",
            labels=["state"],
        )
        clients = list(live_pages())
        connected = sum(1 for client in clients if client.has_socket_connection)
        gauge.add_metric(["connected"], connected)
        gauge.add_metric(["unconnected"], len(clients) - connected)
        yield gauge
