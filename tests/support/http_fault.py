"""A loopback HTTP reverse proxy in front of a real server (the dev cluster's API), which a test tells
how to misbehave: answer some requests with a status of its choosing (a 409, a 500, a 429 with
Retry-After), answer them late, or stop listening altogether. Everything else is forwarded untouched,
streamed both ways, and every request is recorded with the status it got."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import yaml
from aiohttp import web

from nufi_sandbox.processes import free_port

_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "host"})


@dataclass
class Fault:
    """What to do with the requests `matches` accepts (all by default), the first `times` of them
    (all when None): wait `delay` seconds, then answer `status` (a Kubernetes Status body) or, with
    no status, forward as usual."""

    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    times: int | None = None
    matches: Callable[[str, str], bool] = lambda method, path: True
    hits: int = 0

    def applies(self, method: str, path: str) -> bool:
        return (self.times is None or self.hits < self.times) and self.matches(method, path)


def requests_to(method: str, path_part: str) -> Callable[[str, str], bool]:
    return lambda m, p: m == method and path_part in p


class HttpFault:
    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.port = free_port()
        self.fault: Fault | None = None
        self.seen: list[tuple[str, str, int]] = []
        self._session: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> HttpFault:
        self._session = aiohttp.ClientSession(auto_decompress=False)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        # Watches stay open through the proxy: do not wait for them when it closes.
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        await self.up()
        return self

    async def up(self) -> None:
        if self._site is None and self._runner is not None:
            self._site = web.TCPSite(self._runner, "127.0.0.1", self.port)
            await self._site.start()

    async def down(self) -> None:
        """Stop listening and drop every open connection (kept-alive ones and watches): new
        connections are refused, as by a server that is not running."""
        site, self._site = self._site, None
        if site is not None:
            await site.stop()
        server = self._runner.server if self._runner is not None else None
        for connection in list(server.connections if server is not None else ()):
            if connection.transport is not None:
                connection.transport.abort()

    def set(self, fault: Fault | None) -> Fault | None:
        self.fault = fault
        return fault

    def statuses(self, method: str, path_part: str) -> list[int]:
        return [status for m, p, status in self.seen if m == method and path_part in p]

    async def close(self) -> None:
        # Upstream first: ends the streams the proxy is still relaying, so the handlers return.
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method, path = request.method, request.path_qs
        fault = self.fault
        if fault is not None and fault.applies(method, path):
            fault.hits += 1
            if fault.delay:
                await asyncio.sleep(fault.delay)
            if fault.status is not None:
                self.seen.append((method, path, fault.status))
                status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": fault.status}
                status["message"] = f"injected HTTP {fault.status}"
                return web.Response(
                    status=fault.status,
                    body=json.dumps(status),
                    content_type="application/json",
                    headers=fault.headers,
                )
        assert self._session is not None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        async with self._session.request(
            method, self.target + path, headers=headers, data=await request.read(), allow_redirects=False
        ) as upstream:
            self.seen.append((method, path, upstream.status))
            response = web.StreamResponse(
                status=upstream.status,
                headers={k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_BY_HOP},
            )
            await response.prepare(request)
            async for chunk in upstream.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response


def through(proxy: HttpFault, kubeconfig: Path, into: Path) -> Path:
    """A copy of `kubeconfig` whose server is the proxy."""
    config = yaml.safe_load(kubeconfig.read_text())
    for entry in config["clusters"]:
        entry["cluster"]["server"] = proxy.url
    into.write_text(yaml.safe_dump(config))
    return into
