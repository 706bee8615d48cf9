"""The monitoring readers: REST snapshot pollers sending the last ETag back, range readers, and event
streams held open for the whole run."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator

import httpx

from bench.load.plan import Plan, Tokens, now, pause_until
from bench.load.tally import Tally, answered
from bench.load.world import TYPE_ID

PAGE_NODES = "25"
RANGE_METRICS = ("utilization", "temperature", "memory")
RANGE_BY = ("node", "device")


async def snapshot_reader(
    number: int, client: httpx.AsyncClient, tokens: Tokens, plan: Plan, deadline: float, tally: Tally
) -> None:
    route = f"GET /api/v1/monitoring/{TYPE_ID}"
    rng = random.Random(number)
    # Readers that opened their pages at different moments do not poll in step.
    await pause_until(now() + rng.uniform(0, plan.poll_seconds), deadline)
    etag: str | None = None
    while now() < deadline:
        began = now()
        headers = await tokens.headers()
        if etag is not None:
            headers["If-None-Match"] = etag
        started = time.perf_counter()
        try:
            response = await client.get(
                f"/api/v1/monitoring/{TYPE_ID}", params={"limit": PAGE_NODES}, headers=headers
            )
        except httpx.HTTPError as exc:
            tally.error(route, None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
        else:
            seconds = time.perf_counter() - started
            if answered(tally, route, response, seconds, (200, 304)) and response.status_code == 200:
                etag = response.headers.get("etag")
                tally.look_at(response.json())
        await pause_until(began + plan.poll_seconds, deadline)


async def range_reader(
    number: int, client: httpx.AsyncClient, tokens: Tokens, plan: Plan, deadline: float, tally: Tally
) -> None:
    route = f"GET /api/v1/monitoring/{TYPE_ID}/range"
    rng = random.Random(10_000 + number)
    await pause_until(now() + rng.uniform(0, plan.range_poll_seconds), deadline)
    turn = number
    while now() < deadline:
        began = now()
        params = {"metric": RANGE_METRICS[turn % len(RANGE_METRICS)], "by": RANGE_BY[turn % len(RANGE_BY)]}
        turn += 1
        started = time.perf_counter()
        try:
            response = await client.get(
                f"/api/v1/monitoring/{TYPE_ID}/range", params=params, headers=await tokens.headers()
            )
        except httpx.HTTPError as exc:
            tally.error(route, None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
        else:
            if answered(tally, route, response, time.perf_counter() - started, (200,)):
                tally.charted(response.json())
        await pause_until(began + plan.range_poll_seconds, deadline)


async def sse_events(response: httpx.Response) -> AsyncIterator[tuple[str, str]]:
    """The events of a Server-Sent Events body, name and data (`heartbeat` for a comment line)."""
    event, data = "message", list[str]()
    async for line in response.aiter_lines():
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
        elif line.startswith(":"):
            yield "heartbeat", ""
        elif line.startswith("event:"):
            event = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data.append(line.removeprefix("data:").removeprefix(" "))


async def stream_reader(
    number: int, client: httpx.AsyncClient, tokens: Tokens, deadline: float, tally: Tally
) -> None:
    """One stream held open until the deadline; opened again if it breaks."""
    route = f"GET /api/v1/monitoring/{TYPE_ID}/stream (to its first event)"
    # What goes wrong once a stream is open: an error or end event, the server ending it early.
    incidents = f"GET /api/v1/monitoring/{TYPE_ID}/stream: its events"
    received = 0
    last: float | None = None
    longest = 0.0
    while now() < deadline:
        started = time.perf_counter()
        first = True
        try:
            async with (
                asyncio.timeout_at(deadline),
                client.stream(
                    "GET",
                    f"/api/v1/monitoring/{TYPE_ID}/stream",
                    params={"limit": PAGE_NODES},
                    headers=await tokens.headers(),
                ) as response,
            ):
                if response.status_code != 200:
                    await response.aread()
                    tally.error(route, response.status_code, time.perf_counter() - started, response.text)
                    await pause_until(now() + 1.0, deadline)
                    continue
                async for event, data in sse_events(response):
                    if first:
                        tally.ok(route, 200, time.perf_counter() - started)
                        first = False
                    tally.stream_events[event] += 1
                    if event == "snapshot":
                        received += 1
                        try:
                            tally.look_at(json.loads(data))
                        except ValueError:
                            tally.error(incidents, 200, None, f"stream {number}: not JSON: {data}")
                        if last is not None:
                            longest = max(longest, now() - last)
                        last = now()
                    elif event in ("error", "end"):
                        tally.error(incidents, 200, None, f"stream {number} sent `event: {event}`: {data}")
                # The server ended the stream while the run went on.
                tally.error(incidents, 200, None, f"stream {number} ended by the server")
        except TimeoutError:
            if first and received == 0:
                tally.error(route, None, None, f"stream {number}: no event in the whole run")
            break
        except httpx.HTTPError as exc:
            tally.error(route, None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
            await pause_until(now() + 1.0, deadline)
    if last is not None:
        longest = max(longest, deadline - last)
    tally.events_per_stream.append(received)
    tally.longest_gaps.append(longest)
