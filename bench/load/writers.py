"""The admin writers: a thermal policy, the device type saved back with the revision read, a project
created and deleted, in turn."""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any

import httpx

from bench.load.plan import Plan, Tokens, now, pause_until
from bench.load.tally import Tally, answered
from bench.load.world import TYPE_ID

# What a device type update sends back of what it read (DeviceTypeUpdate).
UPDATE_FIELDS = ("name", "vendor", "enabled", "resource_key", "labels", "metrics", "thermal", "fetcher")


async def writer(
    number: int,
    client: httpx.AsyncClient,
    tokens: Tokens,
    plan: Plan,
    deadline: float,
    tally: Tally,
    run_id: str,
) -> None:
    """An admin at work: a thermal policy, the device type, a project created and deleted, in turn."""
    rng = random.Random(20_000 + number)
    await pause_until(now() + rng.uniform(0, plan.write_pause), deadline)
    step = 0
    pending_project: str | None = None
    while now() < deadline:
        began = now()
        kind = step % 3
        step += 1
        with contextlib.suppress(httpx.HTTPError):  # counted where it happened
            if kind == 0:
                await put_thermal_policy(client, tokens, tally, trip=85 + (step + number) % 5)
            elif kind == 1:
                await update_device_type(client, tokens, tally, name=f"LPU (writer {number}, write {step})")
            elif pending_project is None:
                pending_project = f"load-{run_id}-w{number}-{step}"
                if not await create_project(client, tokens, tally, pending_project):
                    pending_project = None
            else:
                await delete_project(client, tokens, tally, pending_project)
                pending_project = None
        await pause_until(began + plan.write_pause, deadline)
    if pending_project is not None:
        # Outside the clock: a project left over would only clutter the sandbox the run throws away.
        with contextlib.suppress(httpx.HTTPError):
            await delete_project(client, tokens, tally, pending_project)


async def timed(
    tally: Tally, route: str, client: httpx.AsyncClient, method: str, url: str, **kwargs: Any
) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        tally.error(route, None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
        raise
    return response, time.perf_counter() - started


async def put_thermal_policy(client: httpx.AsyncClient, tokens: Tokens, tally: Tally, *, trip: int) -> None:
    route = f"PUT /api/v1/admin/thermal/policies/{TYPE_ID}"
    # Disabled: a policy that cut traffic would change what the other workers measure.
    policy = {"enabled": False, "trip_celsius": trip, "resume_celsius": 75}
    response, seconds = await timed(
        tally,
        route,
        client,
        "PUT",
        f"/api/v1/admin/thermal/policies/{TYPE_ID}",
        json=policy,
        headers=await tokens.headers(),
    )
    answered(tally, route, response, seconds, (200,))


async def update_device_type(client: httpx.AsyncClient, tokens: Tokens, tally: Tally, *, name: str) -> None:
    """Read the type, then save it renamed with the revision read: a writer that saved in between makes
    the revision stale, and the API answers 409 (the lost race, counted apart)."""
    read_route = f"GET /api/v1/devices/{TYPE_ID}"
    response, seconds = await timed(
        tally, read_route, client, "GET", f"/api/v1/devices/{TYPE_ID}", headers=await tokens.headers()
    )
    if not answered(tally, read_route, response, seconds, (200,)):
        return
    current = response.json()
    body = {key: current[key] for key in UPDATE_FIELDS if key in current}
    body |= {"name": name, "revision": current["revision"]}
    route = f"PUT /api/v1/admin/devices/{TYPE_ID} (revision read)"
    response, seconds = await timed(
        tally,
        route,
        client,
        "PUT",
        f"/api/v1/admin/devices/{TYPE_ID}",
        json=body,
        headers=await tokens.headers(),
    )
    if answered(tally, route, response, seconds, (200,), race=True) and response.status_code == 200:
        tally.saves += 1


async def create_project(client: httpx.AsyncClient, tokens: Tokens, tally: Tally, name: str) -> bool:
    route = "POST /api/v1/admin/projects"
    response, seconds = await timed(
        tally,
        route,
        client,
        "POST",
        "/api/v1/admin/projects",
        json={"name": name, "members": ["user"]},
        headers=await tokens.headers(),
    )
    return answered(tally, route, response, seconds, (201,))


async def delete_project(client: httpx.AsyncClient, tokens: Tokens, tally: Tally, name: str) -> None:
    route = "DELETE /api/v1/admin/projects/{name}"
    response, seconds = await timed(
        tally, route, client, "DELETE", f"/api/v1/admin/projects/{name}", headers=await tokens.headers()
    )
    answered(tally, route, response, seconds, (200,))
