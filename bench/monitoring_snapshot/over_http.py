"""2./3. Warm reads over HTTP: the NuFi app with its lifespan, served by uvicorn in this process,
read by httpx clients with a bearer token from the dev identity provider; then the soak."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any, Literal

import httpx
import uvicorn

from bench.common.printing import line, ms
from bench.common.timing import until_serving
from bench.monitoring_snapshot.phases import drive, phase
from bench.monitoring_snapshot.soak import soak
from bench.monitoring_snapshot.world import MANY_READERS, TYPE_ID, World
from nufi.api import create_app
from nufi.config import Settings
from nufi.services import Services
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.processes import free_port

HTTP_PAGE_NODES = 100
TOKEN_REFRESH_SECONDS = 60.0
NUFI_EVALUATION_SECONDS = re.compile(
    r'^nufi_monitoring_evaluation_seconds_sum\{device_type="' + TYPE_ID + r'"\}\s+(\S+)', re.M
)
NUFI_SNAPSHOT_HANDLING = re.compile(
    r'^nufi_http_request_duration_seconds_(sum|count)\{[^}]*route="/api/v1/monitoring/\{device_type_id\}"'
    r"[^}]*\}\s+(\S+)",
    re.M,
)
NUFI_EVALUATIONS = re.compile(
    r'^nufi_monitoring_evaluations_total\{device_type="' + TYPE_ID + r'"\}\s+(\S+)', re.M
)


@contextlib.asynccontextmanager
async def uvicorn_serving(app: Any, *, lifespan: Literal["on", "off"]) -> AsyncIterator[str]:
    """`app` served by uvicorn on a free loopback port in this process, until the block ends: its URL."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, lifespan=lifespan, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("uvicorn stopped before it served")
            await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@contextlib.asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[tuple[str, Services]]:
    """The NuFi app with its lifespan, served by uvicorn on a free loopback port in this process."""
    app = create_app(settings)
    async with app.router.lifespan_context(app), uvicorn_serving(app, lifespan="off") as url:
        yield url, app.state.services


class HttpReads:
    """What a reader over HTTP asks the served app: the first page of the snapshot, the whole of it,
    the time of the snapshot served now, and NuFi's own counters from its /metrics."""

    def __init__(self, client: httpx.AsyncClient, identity: IdentityProviderProcess) -> None:
        self.client = client
        self.identity = identity
        self.path = f"/api/v1/monitoring/{TYPE_ID}"

    async def read_page(self) -> bool:
        # A connection the server dropped under load is a failed read, counted, not the end.
        try:
            response = await self.client.get(self.path, params={"limit": HTTP_PAGE_NODES})
        except httpx.TransportError:
            return False
        return response.status_code == 200

    async def read_whole(self) -> bool:
        try:
            response = await self.client.get(self.path)
        except httpx.TransportError:
            return False
        return response.status_code == 200

    async def evaluations(self) -> tuple[float, float]:
        response = await self.client.get("/metrics")
        response.raise_for_status()
        count = sum(float(value) for value in NUFI_EVALUATIONS.findall(response.text))
        return count, sum(float(value) for value in NUFI_EVALUATION_SECONDS.findall(response.text))

    async def handling(self) -> tuple[float, float]:
        response = await self.client.get("/metrics")
        response.raise_for_status()
        found = NUFI_SNAPSHOT_HANDLING.findall(response.text)
        count = sum(float(value) for kind, value in found if kind == "count")
        return count, sum(float(value) for kind, value in found if kind == "sum")

    async def latest(self) -> float:
        response = await self.client.get(self.path, params={"limit": 1})
        response.raise_for_status()
        return datetime.fromisoformat(response.json()["time"]).timestamp()

    async def refresh_token(self) -> None:
        while True:
            await asyncio.sleep(TOKEN_REFRESH_SECONDS)
            fresh = await asyncio.to_thread(self.identity.password_token, "user", "user")
            self.client.headers["Authorization"] = f"Bearer {fresh}"


async def warm_http(world: World, prometheus: httpx.AsyncClient) -> None:
    token = await asyncio.to_thread(world.identity.password_token, "user", "user")
    limits = httpx.Limits(max_connections=MANY_READERS + 8, max_keepalive_connections=MANY_READERS + 8)
    async with (
        serving(world.settings) as (url, services),
        httpx.AsyncClient(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120.0, limits=limits
        ) as client,
    ):
        reads = HttpReads(client, world.identity)
        refresher = asyncio.create_task(reads.refresh_token())
        try:
            if services.cluster_cache is not None:
                await until_serving(services.cluster_cache)
            if not await reads.read_page():
                response = await client.get(reads.path, params={"limit": HTTP_PAGE_NODES})
                raise RuntimeError(f"NuFi answered {response.status_code}: {response.text[:500]}")
            await http_phases(world, reads, prometheus)
            if world.soak_seconds > 0:
                await soak(
                    world, reads.read_page, prometheus, reads.evaluations, reads.latest, reads.handling
                )
        finally:
            refresher.cancel()
            await asyncio.gather(refresher, return_exceptions=True)


async def http_phases(world: World, reads: HttpReads, prometheus: httpx.AsyncClient) -> None:
    """The warm phases with 1 and with many readers of the first page, then one of the whole."""
    interval = world.refresh_seconds
    print(
        f"\n2./3. warm reads over HTTP (GET {reads.path}?limit={HTTP_PAGE_NODES}, bearer token; "
        f"uvicorn and readers in one process), {world.warm_seconds:g} s per phase"
    )
    for readers in (1, MANY_READERS):
        name = f"HTTP, {readers:>3} reader{'s' if readers > 1 else ''}"
        await phase(
            name,
            readers,
            world.warm_seconds,
            reads.read_page,
            prometheus,
            reads.evaluations,
            reads.latest,
            interval,
            handling=reads.handling,
        )
    whole = await drive(1, min(world.warm_seconds, 10.0), reads.read_whole)
    line(
        "for reference: HTTP, 1 reader, the whole snapshot: p50 / p99",
        f"{ms(whole.percentile(50))} / {ms(whole.percentile(99)).strip()}  ({whole.per_second:,.1f} reads/s)",
    )
