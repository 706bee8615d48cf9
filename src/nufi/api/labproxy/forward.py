"""Passing one HTTP exchange or one WebSocket between a caller (ASGI) and a lab's Service (aiohttp).

Bodies stream both ways as they come; nothing is buffered but the HTML pages the API server's services
proxy rewrote, which are read to their end (up to MAX_REWRITTEN_HTML_BYTES) and put back. Hop-by-hop
headers (RFC 9110 §7.6.1) stay on their hop, and NuFi's own credentials — the caller's
`Authorization`, the dashboard's session cookie and the lab cookie — never leave NuFi. Neither do
`Impersonate-*` headers: on the services-proxy route the request goes on with NuFi's Kubernetes
credentials, and the API server would act as whoever they name.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import aiohttp
from multidict import CIMultiDict
from starlette.types import Receive, Scope, Send
from yarl import URL

from nufi.cluster.service_route import Upstream

SESSION_COOKIE = "nufi_session"  # the dashboard's session (nufi.ui.signin.SESSION_COOKIE)
# The lab cookie and the lab sign-in's state cookie (nufi.api.labproxy.origin), by their names over http
# and over https.
LAB_COOKIES = frozenset({"nufi_lab", "__Host-nufi_lab", "nufi_lab_state", "__Host-nufi_lab_state"})
# NuFi's cookies, which a lab (running whatever image its owner chose) must not set: a lab planting its
# owner's session in a visitor's browser would sign them in as someone else.
NUFI_COOKIES = frozenset({SESSION_COOKIE, "nufi_login", *LAB_COOKIES})
# Kubernetes' user impersonation (Impersonate-User, -Group, -Uid, -Extra-<key>).
IMPERSONATION_PREFIX = "impersonate-"
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
# Set by aiohttp for the upstream hop, or credentials that are NuFi's.
_NOT_FORWARDED = frozenset({"host", "authorization", "cookie", "content-length"})
_WEBSOCKET_HANDSHAKE = frozenset(
    {"sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol"}
)
# The WebSocket close code for a caller whose right to the socket ended (RFC 6455 §7.4.1).
POLICY_VIOLATION = 1008
# HTML the services proxy rewrote is read whole to be put back; larger pages pass as they are.
MAX_REWRITTEN_HTML_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Target:
    """One exchange's destination: the Upstream, the path on it (already percent-encoded) and the
    query, and how Location headers map back onto NuFi's path for the lab."""

    upstream: Upstream
    path: str
    query: str
    # The lab's path on NuFi ("/labs/p/n/"), and whether the lab serves under it itself; a lab that
    # serves at `/` has its absolute redirects put back under the prefix.
    prefix: str
    serves_prefix: bool

    @property
    def url(self) -> URL:
        text = self.upstream.base_url + self.path + (f"?{self.query}" if self.query else "")
        return URL(text, encoded=True)

    def local_location(self, location: str) -> str:
        """A redirect's Location as the caller must follow it, on NuFi's paths."""
        base = URL(self.upstream.base_url)
        try:
            parsed = URL(location)
        except ValueError:
            return location
        if parsed.is_absolute():
            if (parsed.host, parsed.port) != (base.host, base.port):
                return location  # somewhere else entirely: leave it
            location = str(parsed.relative())
        rewritten = self.upstream.rewritten_prefix
        if rewritten and location.startswith(rewritten + "/"):
            location = location[len(rewritten) :]
        if not self.serves_prefix and location.startswith("/") and not location.startswith(self.prefix):
            location = self.prefix.rstrip("/") + location
        return location


def request_headers(scope: Scope, upstream: Upstream, *, websocket: bool = False) -> CIMultiDict[str]:
    """The caller's headers as the lab gets them."""
    listed = _connection_listed(scope["headers"])
    out: CIMultiDict[str] = CIMultiDict()
    cookies: list[str] = []
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        if name == "cookie":
            cookies.append(value)
            continue
        if name in HOP_BY_HOP or name in listed or name in _NOT_FORWARDED:
            continue
        if name.startswith(IMPERSONATION_PREFIX):
            continue
        if websocket and name in _WEBSOCKET_HANDSHAKE:
            continue  # the upstream handshake is aiohttp's own
        out.add(name, value)
    kept = without_session_cookie(cookies)
    if kept:
        out["cookie"] = kept
    length = _header(scope["headers"], "content-length")
    if length is not None and not websocket:
        out["content-length"] = length
    client = scope.get("client")
    if client:
        previous = out.get("x-forwarded-for")
        out["x-forwarded-for"] = f"{previous}, {client[0]}" if previous else str(client[0])
    host = _header(scope["headers"], "host")
    if host:
        out["x-forwarded-host"] = host
    out["x-forwarded-proto"] = _scheme(scope)
    if upstream.rewritten_prefix:
        # Links in HTML are rewritten by the services proxy; uncompressed pages are the ones it can.
        out["accept-encoding"] = "identity"
    for name, value in upstream.headers.items():
        out[name] = value
    return out


def without_session_cookie(cookie_headers: Iterable[str]) -> str:
    """Every cookie of the request but NuFi's (the dashboard session, the lab cookie), as one Cookie
    header (empty: none left)."""
    kept: list[str] = []
    for header in cookie_headers:
        for pair in header.split(";"):
            name, _, _ = pair.strip().partition("=")
            if pair.strip() and name.strip() not in NUFI_COOKIES:
                kept.append(pair.strip())
    return "; ".join(kept)


def response_headers(response: aiohttp.ClientResponse, target: Target) -> list[tuple[bytes, bytes]]:
    listed = {v.strip().lower() for v in response.headers.getall("connection", []) for v in v.split(",")}
    out: list[tuple[bytes, bytes]] = []
    for raw_name, raw_value in response.raw_headers:
        name = raw_name.decode("latin-1").lower()
        if name in HOP_BY_HOP or name in listed:
            continue
        value = raw_value.decode("latin-1")
        if name == "location":
            value = target.local_location(value)
        if name == "set-cookie" and value.split("=", 1)[0].strip() in NUFI_COOKIES:
            continue
        out.append((name.encode("latin-1"), value.encode("latin-1")))
    return out


class CallerGone(Exception):
    """The caller hung up while its request body was still on its way to the lab."""


async def forward_http(
    session: aiohttp.ClientSession, target: Target, scope: Scope, receive: Receive, send: Send
) -> None:
    """One request to the lab and its answer back, both streamed; raises aiohttp.ClientError when the
    lab cannot be reached (nothing has been sent to the caller then)."""
    headers = request_headers(scope, target.upstream)
    has_body = "content-length" in headers or _header(scope["headers"], "transfer-encoding") is not None
    disconnected = asyncio.Event()

    async def body() -> AsyncIterator[bytes]:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                disconnected.set()
                # Ending the body here would hand the lab a cut-off upload as if it were whole; failing
                # the request breaks the lab's connection instead.
                raise CallerGone
            chunk = message.get("body", b"")
            if chunk:
                yield chunk
            if not message.get("more_body", False):
                return

    try:
        async with session.request(
            scope["method"],
            target.url,
            headers=headers,
            data=body() if has_body else None,
            allow_redirects=False,
            ssl=target.upstream.ssl_context if target.upstream.ssl_context is not None else True,
        ) as response:
            out_headers = response_headers(response, target)
            if target.upstream.rewritten_prefix and _is_html(response):
                await _send_unrewritten(response, target, out_headers, send)
                return
            await send({"type": "http.response.start", "status": response.status, "headers": out_headers})
            async for chunk in response.content.iter_any():
                if disconnected.is_set():
                    return
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    except (aiohttp.ClientError, CallerGone):
        if disconnected.is_set():
            return  # nobody is left to tell
        raise


async def _send_unrewritten(
    response: aiohttp.ClientResponse, target: Target, headers: list[tuple[bytes, bytes]], send: Send
) -> None:
    # The API server prepends its proxy path to the absolute links of HTML it passes back; the
    # browser must keep to NuFi's paths, so the prefix is taken out again.
    body = await read_up_to(response.content, MAX_REWRITTEN_HTML_BYTES + 1)
    if len(body) <= MAX_REWRITTEN_HTML_BYTES:
        body = body.replace(target.upstream.rewritten_prefix.encode() + b"/", b"/")
        headers = [(n, v) for n, v in headers if n != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": response.status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})
        return
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": True})
    async for chunk in response.content.iter_any():
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def read_up_to(content: aiohttp.StreamReader, limit: int) -> bytes:
    """The body to its end or its first `limit` bytes, whichever is shorter. One `read(n)` returns
    what one network read brought (up to n), not n: a page read that way arrives cut off."""
    body = bytearray()
    while len(body) < limit:
        chunk = await content.read(limit - len(body))
        if not chunk:
            break
        body += chunk
    return bytes(body)


async def forward_websocket(
    session: aiohttp.ClientSession,
    target: Target,
    scope: Scope,
    receive: Receive,
    send: Send,
    *,
    revoked: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Open the lab's WebSocket, then accept the caller's (whose `websocket.connect` was received
    already) with the subprotocol the lab chose, and pass messages both ways until either side
    closes, or `revoked()` returns: the caller's right to the socket ended, and both sides are closed
    with 1008 (policy violation). Raises aiohttp.ClientError before accepting when the lab refuses or
    cannot be reached."""
    headers = request_headers(scope, target.upstream, websocket=True)
    upstream = await session.ws_connect(
        target.url,
        headers=headers,
        protocols=tuple(scope.get("subprotocols") or ()),
        ssl=target.upstream.ssl_context if target.upstream.ssl_context is not None else True,
        autoping=True,
        max_msg_size=0,
    )
    try:
        accept: dict[str, Any] = {"type": "websocket.accept"}
        if upstream.protocol:
            accept["subprotocol"] = upstream.protocol
        await send(accept)
        await _pump(upstream, receive, send, revoked)
    finally:
        await upstream.close()


async def _pump(
    upstream: aiohttp.ClientWebSocketResponse,
    receive: Receive,
    send: Send,
    revoked: Callable[[], Awaitable[None]] | None,
) -> None:
    async def downstream_to_upstream() -> None:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                await upstream.close(code=int(message.get("code") or 1000))
                return
            if message.get("bytes") is not None:
                await upstream.send_bytes(message["bytes"])
            elif message.get("text") is not None:
                await upstream.send_str(message["text"])

    async def upstream_to_downstream() -> None:
        async for message in upstream:
            if message.type == aiohttp.WSMsgType.TEXT:
                await send({"type": "websocket.send", "text": message.data})
            elif message.type == aiohttp.WSMsgType.BINARY:
                await send({"type": "websocket.send", "bytes": message.data})
            elif message.type == aiohttp.WSMsgType.ERROR:
                break
        code = upstream.close_code or 1000
        with contextlib.suppress(Exception):  # the caller may be gone already
            await send({"type": "websocket.close", "code": code if code != 1006 else 1011})

    async def until_revoked() -> None:
        assert revoked is not None
        await revoked()
        with contextlib.suppress(Exception):  # the caller may be gone already
            await send({"type": "websocket.close", "code": POLICY_VIOLATION})
        await upstream.close(code=POLICY_VIOLATION)

    tasks = [asyncio.create_task(downstream_to_upstream()), asyncio.create_task(upstream_to_downstream())]
    if revoked is not None:
        tasks.append(asyncio.create_task(until_revoked()))
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _connection_listed(headers: Iterable[tuple[bytes, bytes]]) -> set[str]:
    listed: set[str] = set()
    for name, value in headers:
        if name.lower() == b"connection":
            listed |= {token.strip().lower() for token in value.decode("latin-1").split(",") if token.strip()}
    return listed


def _header(headers: Iterable[tuple[bytes, bytes]], wanted: str) -> str | None:
    key = wanted.encode()
    for name, value in headers:
        if name.lower() == key:
            return value.decode("latin-1")
    return None


def _scheme(scope: Scope) -> str:
    scheme = str(scope.get("scheme") or "http")
    return {"ws": "http", "wss": "https"}.get(scheme, scheme)


def _is_html(response: aiohttp.ClientResponse) -> bool:
    return response.content_type == "text/html" and not response.headers.get("content-encoding")
