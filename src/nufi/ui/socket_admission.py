"""Who may hold the dashboard's socket (NiceGUI's socket.io at `/_nicegui_ws`), how many, and for how
long without finishing its handshake.

A dashboard socket exists for one thing: a page this replica built for a signed-in session talks to
its browser over it. Engine.io's connect (the first polling request, or the WebSocket handshake)
names that page's client id in its query, so it is admitted only:

- for the client id of a live page, from the browser of the session the page was built for; or
- for a client id of no page here, from a browser whose session is live (this replica restarted, or
  the page was let go): NiceGUI's own handshake then refuses the unknown page and its script reloads
  it, which a refused connect would never make it do;

and never anonymously. One client address holds at most NUFI_DASHBOARD_MAX_SOCKETS_PER_CLIENT at
once, and a socket whose page handshake has not completed within NUFI_HTTP_HEADER_TIMEOUT_SECONDS of
its connect is closed, as a request whose headers are late is.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from nicegui import background_tasks, core
from starlette.requests import Request

from nufi.ui import context, open_pages
from nufi.ui.signin import SESSION_COOKIE

# Used while no services are attached (they are, whenever NuFi serves).
DEFAULT_MAX_SOCKETS_PER_CLIENT = 64
DEFAULT_HANDSHAKE_SECONDS = 20.0

_by_address: dict[str, set[str]] = {}
_address_of: dict[str, str] = {}


def install() -> None:
    """Wrap engine.io's connect and disconnect handlers (those python-socketio installs) with the
    admission above. Once per process, as NiceGUI's socket server."""
    eio = core.sio.eio
    connect = eio.handlers.get("connect")
    disconnect = eio.handlers.get("disconnect")
    if connect is None or disconnect is None or getattr(connect, "nufi_admitted", False):
        return

    async def admitted(eio_sid: str, environ: dict[str, Any], *rest: Any) -> Any:
        address = _client_address(environ)
        held = _by_address.setdefault(address, set())
        if len(held) >= _max_sockets() or not await _admits(environ):
            if not held:
                _by_address.pop(address, None)
            return False
        held.add(eio_sid)
        _address_of[eio_sid] = address
        answer = await _call(connect, eio_sid, environ, *rest)
        if answer is not None and answer is not True:
            _release(eio_sid)  # refused after all: engine.io sends no disconnect for it
            return answer
        asyncio.get_running_loop().call_later(_handshake_seconds(), _check_handshake, eio_sid)
        return answer

    async def released(eio_sid: str, *rest: Any) -> Any:
        _release(eio_sid)
        return await _call(disconnect, eio_sid, *rest)

    admitted.nufi_admitted = True  # type: ignore[attr-defined]
    eio.on("connect", admitted)
    eio.on("disconnect", released)


def held_by(address: str) -> int:
    """How many dashboard sockets `address` holds now."""
    return len(_by_address.get(address, ()))


async def _admits(environ: dict[str, Any]) -> bool:
    query = parse_qs(str(environ.get("QUERY_STRING", "")))
    client_ids = query.get("client_id") or [""]
    request = _request(environ)
    session_id = request.cookies.get(SESSION_COOKIE) if request is not None else None
    whose = open_pages.socket_for(client_ids[0], session_id)
    if whose != "none here":
        return whose == "its own"
    if request is None or not session_id:
        return False
    # No page of this replica: only a signed-in browser is let through to be told to reload it.
    return await context.principal(request) is not None


def _request(environ: dict[str, Any]) -> Request | None:
    scope = environ.get("asgi.scope")
    if not isinstance(scope, dict):
        return None
    # The WebSocket handshake's scope read as a request, for its cookies and the session lookup.
    return Request({**scope, "type": "http"})


def _client_address(environ: dict[str, Any]) -> str:
    scope = environ.get("asgi.scope") or {}
    client = scope.get("client") if isinstance(scope, dict) else None
    if client:
        return str(client[0])
    return str(environ.get("REMOTE_ADDR", ""))


def _release(eio_sid: str) -> None:
    address = _address_of.pop(eio_sid, None)
    if address is None:
        return
    held = _by_address.get(address)
    if held is not None:
        held.discard(eio_sid)
        if not held:
            _by_address.pop(address, None)


def _check_handshake(eio_sid: str) -> None:
    if eio_sid not in _address_of:
        return  # gone already
    sid = core.sio.manager.sid_from_eio_sid(eio_sid, "/")
    # NiceGUI's handshake puts the socket in the room of its page's client.
    if sid is not None and any(room in open_pages.client_ids() for room in core.sio.rooms(sid)):
        return
    background_tasks.create(_close(eio_sid), name=f"close late socket {eio_sid}")


async def _close(eio_sid: str) -> None:
    with contextlib.suppress(Exception):  # it may have gone meanwhile
        await core.sio.eio.disconnect(eio_sid)


async def _call(handler: Callable[..., Any], *args: Any) -> Any:
    answer = handler(*args)
    return await answer if inspect.isawaitable(answer) else answer


def _max_sockets() -> int:
    if not context.is_attached():
        return DEFAULT_MAX_SOCKETS_PER_CLIENT
    return context.services().settings.dashboard_max_sockets_per_client


def _handshake_seconds() -> float:
    if not context.is_attached():
        return DEFAULT_HANDSHAKE_SECONDS
    return context.services().settings.http_header_timeout_seconds
