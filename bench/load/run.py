"""The run: the HTTP clients and tokens, the LPU registered, the dashboard sessions signed in, then
every worker at once until the deadline, the readings before and after, and the report."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common.sandbox import LPU_REGISTRATION, SandboxRun
from bench.load.counters import prometheus_queries, queries_per_evaluation
from bench.load.dashboards import open_sessions, still_live
from bench.load.plan import Plan, Tokens, now
from bench.load.readers import range_reader, snapshot_reader, stream_reader
from bench.load.readings import Readings, refreshing_near_deadline, sample_rss
from bench.load.report import report
from bench.load.tally import Tally
from bench.load.world import REFRESH_SECONDS, TYPE_ID, CpuReading, SetupError, program_pid, vm_rss_mib
from bench.load.writers import writer
from nufi.devices.spec import Metrics

# Generous, so a slow answer under load is measured as slow rather than counted as an error.
REQUEST_TIMEOUT = httpx.Timeout(60.0, connect=30.0)
# Idle connections are let go before uvicorn's 5 s keep-alive ends: reusing one the server is
# closing fails the request, which a browser would send again and httpx does not.
LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=2.0)
LOG_LINES_SHOWN = 10
# A warning or worse in NuFi's console log format (`[warning  ]`), or a traceback.
_LOGGED_PROBLEM = re.compile(r"\[(warning|error|critical)\s*\]|Traceback", re.IGNORECASE)


@dataclass(frozen=True)
class Clients:
    """The run's HTTP clients, one per kind of worker over NuFi and one for the rest, and the users'
    tokens."""

    plain: httpx.AsyncClient
    readers: httpx.AsyncClient
    streams: httpx.AsyncClient
    admins: httpx.AsyncClient
    admin: Tokens
    user: Tokens


@contextlib.asynccontextmanager
async def clients(state: dict[str, Any]) -> AsyncIterator[Clients]:
    nufi_url = state["nufi_url"]
    async with (
        httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as plain,
        httpx.AsyncClient(base_url=nufi_url, timeout=REQUEST_TIMEOUT, limits=LIMITS) as readers,
        httpx.AsyncClient(base_url=nufi_url, timeout=REQUEST_TIMEOUT, limits=LIMITS) as streams,
        httpx.AsyncClient(base_url=nufi_url, timeout=REQUEST_TIMEOUT, limits=LIMITS) as admins,
    ):
        admin = Tokens(plain, state["token_url"], "admin", "admin")
        user = Tokens(plain, state["token_url"], "user", "user")
        yield Clients(plain, readers, streams, admins, admin, user)


async def run(plan: Plan, state: dict[str, Any], sandbox: SandboxRun) -> int:
    tally = Tally()
    readings = Readings()
    async with clients(state) as http:
        devices, types, pid = await prepare(http, state, sandbox, readings)
        async with contextlib.AsyncExitStack() as stack:
            sessions, readings.sign_in_seconds = await open_sessions(
                stack, plan.dashboard_sessions, state["nufi_url"], devices, tally
            )
            frames_before = [s.frames for s in sessions]
            await load_window(plan, http, state, sandbox, pid, tally, readings)
            await asyncio.gather(
                *(still_live(s, before, tally) for s, before in zip(sessions, frames_before, strict=True))
            )
        if program_pid(sandbox, "nufi") != pid:
            tally.error("NuFi server process", None, None, f"pid {pid} is gone: NuFi was restarted")
        report(plan, tally, readings, types, pid)
        if tally.errors:
            log_findings(sandbox.state_dir / "logs" / "nufi.log")
    return 1 if tally.errors else 0


async def prepare(
    http: Clients, state: dict[str, Any], sandbox: SandboxRun, readings: Readings
) -> tuple[int, dict[str, Metrics], int]:
    """The LPU registered and in monitoring: its device count, every type's metrics, NuFi's PID."""
    await register_lpu(http.admins, http.admin)
    devices = await first_snapshot(http.readers, http.user)
    types = await queries_per_evaluation(http.admins, http.admin)
    pid = program_pid(sandbox, "nufi")
    if pid is None:
        raise SetupError("the NuFi server's PID is not among the sandbox's children")
    readings.rss_before = vm_rss_mib(pid)
    print(
        f"sandbox ready: NuFi at {state['nufi_url']} (pid {pid}, VmRSS {readings.rss_before or 0:.1f} MiB), "
        f"Prometheus at {state['prometheus_url']}; {TYPE_ID} registered: {devices} devices; "
        f"refresh interval {REFRESH_SECONDS:g} s",
        flush=True,
    )
    return devices, types, pid


async def load_window(
    plan: Plan,
    http: Clients,
    state: dict[str, Any],
    sandbox: SandboxRun,
    pid: int,
    tally: Tally,
    readings: Readings,
) -> None:
    """Every worker until the deadline, between a reading of NuFi and Prometheus before and after."""
    prometheus_pid = program_pid(sandbox, "prometheus")
    readings.rss_window_start = vm_rss_mib(pid)
    readings.prometheus_before = await prometheus_queries(http.plain, state["prometheus_url"])
    readings.cpu_before = CpuReading.now(pid, prometheus_pid)
    start = now()
    deadline = start + plan.seconds
    print(f"load running for {plan.seconds:g} s …", flush=True)
    await asyncio.gather(*workers(plan, http, state["nufi_url"], pid, deadline, tally, readings))
    # Read once the requests in flight at the deadline are answered too, so every query they
    # caused is counted; the dashboards keep every refresher awake until then.
    readings.cpu_after = CpuReading.now(pid, prometheus_pid)
    readings.rss_end = vm_rss_mib(pid)
    try:
        readings.prometheus_after = await prometheus_queries(http.plain, state["prometheus_url"])
    except httpx.HTTPError as exc:
        tally.error("Prometheus' /metrics at the end", None, None, repr(exc))
    readings.window = now() - start


def workers(
    plan: Plan,
    http: Clients,
    nufi_url: str,
    pid: int,
    deadline: float,
    tally: Tally,
    readings: Readings,
) -> list[Coroutine[Any, Any, None]]:
    """Every reader and writer of `plan`, and the readings taken during the load."""
    run_id = f"{os.getpid()}"
    readers, user = http.readers, http.user
    return [
        *(snapshot_reader(n, readers, user, plan, deadline, tally) for n in range(plan.snapshot_readers)),
        *(range_reader(n, readers, user, plan, deadline, tally) for n in range(plan.range_readers)),
        *(stream_reader(n, http.streams, user, deadline, tally) for n in range(plan.stream_readers)),
        *(writer(n, http.admins, http.admin, plan, deadline, tally, run_id) for n in range(plan.writers)),
        sample_rss(pid, deadline, readings),
        refreshing_near_deadline(http.plain, nufi_url, deadline, readings, tally),
    ]


async def register_lpu(client: httpx.AsyncClient, admin: Tokens) -> None:
    deadline = time.monotonic() + 60
    while True:
        response = await client.post(
            "/api/v1/admin/devices", json=LPU_REGISTRATION, headers=await admin.headers()
        )
        if response.status_code == 201:
            return
        if time.monotonic() > deadline:
            raise SetupError(f"the LPU could not be registered: HTTP {response.status_code} {response.text}")
        await asyncio.sleep(1.0)


async def first_snapshot(client: httpx.AsyncClient, user: Tokens) -> int:
    """The type's device count, once its first snapshot has them all."""
    deadline = time.monotonic() + 60
    while True:
        response = await client.get(f"/api/v1/monitoring/{TYPE_ID}", headers=await user.headers())
        if response.status_code == 200:
            devices = int(response.json()["summary"]["devices"])
            if devices > 0:
                return devices
        if time.monotonic() > deadline:
            raise SetupError(f"no LPU devices in monitoring: HTTP {response.status_code} {response.text}")
        await asyncio.sleep(1.0)


def log_findings(log: Path) -> None:
    """The last warnings and errors NuFi logged, to tell a server fault from a client one."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return
    found = [line for line in lines if _LOGGED_PROBLEM.search(line)]
    print(f"\nthe last warnings and errors of {log.name} ({len(found)} in all):")
    for line in found[-LOG_LINES_SHOWN:]:
        print(f"  {line[:300]}")
