"""`make load`: the one-command sandbox under monitoring readers, dashboard sessions and admin writers
at once, for `--seconds`.

Starts `python -m nufi_sandbox` in a state directory of its own (its own session, stopped by PID at
the end, also on Ctrl-C or an error), registers the LPU, and takes tokens for `admin` and `user` from
the dev identity provider (password grant, client `nufi-cli`). Then, concurrently:

- `--readers` monitoring readers as `user`, split between REST snapshot pollers
  (`GET /api/v1/monitoring/{type}?limit=25` every `--poll-seconds`, sending the last ETag back as
  `If-None-Match`, so an unchanged snapshot is a 304), range readers (`.../range`, one metric of the
  last hour every `--range-poll-seconds`; the route sends no ETag) and event streams (`.../stream`,
  held open for the whole run, events counted);
- `--dashboard-sessions` dashboard sessions: each a Chromium browser context of its own, signed in as
  `user` through the real OIDC login form before the clock starts, holding the live monitoring page
  of the type (its timer re-reads the shared snapshot every refresh interval and pushes the changes
  over its websocket; the frames it receives are counted);
- `--writers` admin writers, one write every `--write-pause` seconds each, in turn: a thermal policy
  (`PUT /api/v1/admin/thermal/policies/{type}`), the device type (`GET` it, `PUT` it back renamed with
  the revision it read: the catalog's optimistic concurrency, a stale revision is a 409), and a
  project created and deleted (`POST` / `DELETE /api/v1/admin/projects`).

It prints requests, lost races, errors and p50 / p99 latency per route (an error is a 5xx, a transport
error, or any status the route should not answer; a 409 from a stale revision is a lost race between
writers, which the API is designed to refuse, so it is counted apart and is no error), the first error
bodies, stream events and dashboard updates received, the NuFi process' VmRSS before the load, at its
peak and at the end, and the queries Prometheus answered during the run (its own
`prometheus_http_requests_total`, read from its /metrics) beside what the refreshers are meant to
issue: one evaluation per type being read per refresh interval, whatever the number of readers. It
exits 1 when there was an error, never on time.

Usage: .venv/bin/python -m bench.load [--seconds 60] [--readers 200] [--dashboard-sessions 20]
[--writers 5] [...]; the sandbox and the sign-ins take 20 s to 2 min before the clock starts,
longer on a busy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, WebSocket, async_playwright, expect

from nufi.devices.spec import Metrics
from nufi_sandbox.processes import pid_alive, read_proc_stat
from nufi_sandbox.sandbox.orchestrator import SCRAPE_INTERVAL_SECONDS

# The sandbox as the end-to-end tests run it, and the LPU as they register it.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun

STARTUP_TIMEOUT = 180.0
CHROMIUM = "/usr/bin/chromium"
# The sandbox blanks every NUFI_* variable it does not set, so NuFi's refresh interval is its default:
# the scrape interval the sandbox gives it.
REFRESH_SECONDS = float(SCRAPE_INTERVAL_SECONDS)
TYPE_ID = str(LPU_REGISTRATION["id"])
# What a device type update sends back of what it read (DeviceTypeUpdate).
UPDATE_FIELDS = ("name", "vendor", "enabled", "resource_key", "labels", "metrics", "thermal", "fetcher")
PAGE_NODES = "25"
RANGE_METRICS = ("utilization", "temperature", "memory")
RANGE_BY = ("node", "device")
# Generous, so a slow answer under load is measured as slow rather than counted as an error.
REQUEST_TIMEOUT = httpx.Timeout(60.0, connect=30.0)
PAGE_TIMEOUT_MS = 120_000
# Sign-ins at a time: each is a browser context, a login form, NuFi's code exchange with the identity
# provider (under NUFI_OIDC_TIMEOUT_SECONDS, 3 s) and a first page. Sessions are opened before the
# clock starts; many at once on a small, busy machine time out the exchange on CPU alone.
SIGN_INS_AT_ONCE = 2
ROWS = re.compile(r"lpu\d")
ERROR_SAMPLES_PER_ROUTE = 3
ERROR_SAMPLES_SHOWN = 12
LOG_LINES_SHOWN = 10
RSS_SAMPLE_SECONDS = 2.0
KIB_PER_MIB = 1024


# --- the sandbox ---------------------------------------------------------------------------------------


def start_sandbox(work: Path) -> SandboxRun:
    # A program that dies under load stops the run instead of being restarted unseen.
    return SandboxRun.start(work, args=("--stop-on-failure",))


async def sandbox_ready(sandbox: SandboxRun) -> dict[str, Any]:
    try:
        return await asyncio.to_thread(sandbox.wait_ready, STARTUP_TIMEOUT)
    except AssertionError as exc:
        raise SetupError(str(exc)) from None


def program_pid(sandbox: SandboxRun, name: str) -> int | None:
    """The PID of a program of the sandbox (`nufi`, `prometheus`, ...): the sandbox records each
    program it starts in its state directory; it must be the sandbox's child."""
    try:
        records = json.loads((sandbox.state_dir / "programs.json").read_text())
    except (OSError, ValueError):
        records = []
    for record in records:
        if isinstance(record, dict) and record.get("name") == name:
            pid = int(record["pid"])
            stat = read_proc_stat(pid)
            if stat is not None and stat.ppid == sandbox.process.pid:
                return pid
    return None


class SetupError(RuntimeError):
    """The world could not be brought up; nothing was measured."""


def cpu_seconds(pid: int | None) -> float | None:
    """User and system CPU time of `pid` so far (fields 14 and 15 of /proc/<pid>/stat)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(") ")[2].split()
    except OSError:
        return None
    # Fields after the command name start at field 3 (state): fields 14 and 15 are at 11 and 12.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """Busy and total CPU time of the whole machine so far, in clock ticks (/proc/stat)."""
    ticks = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return sum(ticks) - idle, sum(ticks)


@dataclass(frozen=True)
class CpuReading:
    nufi: float | None
    prometheus: float | None
    benchmark: float
    machine_busy: float
    machine_total: float

    @classmethod
    def now(cls, nufi: int | None, prometheus: int | None) -> CpuReading:
        busy, total = machine_cpu()
        return cls(cpu_seconds(nufi), cpu_seconds(prometheus), time.process_time(), busy, total)


def vm_rss_mib(pid: int | None) -> float | None:
    if pid is None or not pid_alive(pid):
        return None
    try:
        for row in Path(f"/proc/{pid}/status").read_text().splitlines():
            if row.startswith("VmRSS:"):
                return int(row.split()[1]) / KIB_PER_MIB
    except OSError:
        return None
    return None


# --- what is counted -----------------------------------------------------------------------------------


@dataclass
class RouteStats:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    ok: int = 0
    not_modified: int = 0
    raced: int = 0
    errors: int = 0
    samples: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return self.ok + self.raced + self.errors


class Tally:
    """Every request of the run by route, in the order routes were first seen."""

    def __init__(self) -> None:
        self.routes: dict[str, RouteStats] = {}
        self.stream_events: Counter[str] = Counter()
        self.events_per_stream: list[int] = []
        # Per stream, the longest time without a snapshot event (to the end of the run, for the last).
        self.longest_gaps: list[float] = []
        # Range requests answered, by metric, and the device type saves that went through.
        self.ranges: Counter[str] = Counter()
        self.saves = 0
        # Snapshots read (REST bodies and stream events), and those carrying errors, by their source:
        # the refresher serves the last good snapshot with the failure first in `errors`.
        self.snapshots = 0
        self.degraded = 0
        self.degraded_sources: Counter[str] = Counter()
        self.dashboard_frames: list[int] = []

    def look_at(self, body: Any) -> None:
        self.snapshots += 1
        errors = body.get("errors") if isinstance(body, dict) else None
        if errors:
            self.degraded += 1
            for error in errors:
                self.degraded_sources[str(error.get("source", "?")) if isinstance(error, dict) else "?"] += 1

    def route(self, name: str) -> RouteStats:
        return self.routes.setdefault(name, RouteStats())

    def ok(self, name: str, status: int, seconds: float) -> None:
        stats = self.route(name)
        stats.latencies.append(seconds)
        stats.statuses[status] += 1
        stats.ok += 1
        if status == 304:
            stats.not_modified += 1

    def lost_race(self, name: str, status: int, seconds: float) -> None:
        stats = self.route(name)
        stats.latencies.append(seconds)
        stats.statuses[status] += 1
        stats.raced += 1

    def error(self, name: str, status: int | None, seconds: float | None, detail: str) -> None:
        stats = self.route(name)
        if seconds is not None:
            stats.latencies.append(seconds)
        if status is not None:
            stats.statuses[status] += 1
        stats.errors += 1
        if len(stats.samples) < ERROR_SAMPLES_PER_ROUTE:
            shown = f"HTTP {status}" if status is not None else "no answer"
            stats.samples.append(f"{shown}: {' '.join(detail.split())[:400]}")

    @property
    def errors(self) -> int:
        return sum(stats.errors for stats in self.routes.values())


def answered(
    tally: Tally,
    route: str,
    response: httpx.Response,
    seconds: float,
    expected: Iterable[int],
    *,
    race: bool = False,
) -> bool:
    """Count `response`: True when its status is one the route should answer. With `race`, a 409 from
    a stale revision is a lost race (and counts as answered)."""
    status = response.status_code
    if status in expected:
        tally.ok(route, status, seconds)
        return True
    if race and status == 409 and _stale_revision(response):
        tally.lost_race(route, status, seconds)
        return True
    tally.error(route, status, seconds, response.text)
    return False


def _stale_revision(response: httpx.Response) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and "current_revision" in body and "expected_revision" in body


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1))]


# --- tokens ---------------------------------------------------------------------------------------------


class Tokens:
    """A user's access token from the password grant, taken again once half its lifetime has passed."""

    def __init__(self, client: httpx.AsyncClient, token_url: str, username: str, password: str) -> None:
        self._client = client
        self._url = token_url
        self._form = {"grant_type": "password", "client_id": "nufi-cli", "username": username}
        self._form["password"] = password
        self._token = ""
        self._renew_at = 0.0
        self._lock = asyncio.Lock()

    async def headers(self) -> dict[str, str]:
        if time.monotonic() >= self._renew_at:
            async with self._lock:
                if time.monotonic() >= self._renew_at:
                    response = await self._client.post(self._url, data=self._form)
                    if response.status_code != 200:
                        raise SetupError(f"no token for {self._form['username']!r}: {response.text}")
                    answer = response.json()
                    self._token = str(answer["access_token"])
                    self._renew_at = time.monotonic() + float(answer.get("expires_in", 300)) / 2
        return {"Authorization": f"Bearer {self._token}"}


# --- the workers ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    seconds: float
    snapshot_readers: int
    range_readers: int
    stream_readers: int
    dashboard_sessions: int
    writers: int
    poll_seconds: float
    range_poll_seconds: float
    write_pause: float


def now() -> float:
    return asyncio.get_running_loop().time()


async def pause_until(moment: float, deadline: float) -> None:
    await asyncio.sleep(max(0.0, min(moment, deadline) - now()))


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
                tally.ranges[params["metric"]] += 1
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


# --- dashboard sessions ----------------------------------------------------------------------------------


@dataclass
class Session:
    """One signed-in browser context holding the live monitoring page; counts its websocket frames."""

    number: int
    page: Page | None = None
    frames: int = 0

    def watch(self, socket: WebSocket) -> None:
        socket.on("framereceived", self.frame)

    def frame(self, _payload: bytes | str) -> None:
        self.frames += 1


SIGN_IN_ROUTE = "dashboard: OIDC sign-in to the live monitoring page"
LIVE_ROUTE = "dashboard: page still live at the end"


async def sign_in(
    browser: Browser, url: str, session: Session, devices: int, gate: asyncio.Semaphore, tally: Tally
) -> None:
    async with gate:
        context = await browser.new_context(locale="en-US", viewport={"width": 1400, "height": 900})
        page = await context.new_page()
        page.on("websocket", session.watch)
        started = time.perf_counter()
        try:
            await page.goto(f"{url}/?type={TYPE_ID}")
            await expect(page.locator("#kc-form-login")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
            await page.fill("#username", "user")
            await page.fill("#password", "user")
            await page.click("#kc-login")
            await expect(page.get_by_test_id(f"tab-{TYPE_ID}")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
            await expect(page.get_by_test_id("devices-table")).to_contain_text(ROWS, timeout=PAGE_TIMEOUT_MS)
            await expect(page.get_by_test_id("card-devices")).to_contain_text(
                str(devices), timeout=PAGE_TIMEOUT_MS
            )
        except Exception as exc:  # Playwright's errors and failed expectations alike
            tally.error(
                SIGN_IN_ROUTE, None, time.perf_counter() - started, f"session {session.number}: {exc}"
            )
            await context.close()
            return
        tally.ok(SIGN_IN_ROUTE, 200, time.perf_counter() - started)
        session.page = page


async def still_live(session: Session, frames_before: int, tally: Tally) -> None:
    if session.page is None:
        return
    started = time.perf_counter()
    try:
        await expect(session.page.get_by_test_id("devices-table")).to_contain_text(ROWS, timeout=15_000)
    except Exception as exc:  # Playwright's errors and failed expectations alike
        tally.error(LIVE_ROUTE, None, time.perf_counter() - started, f"session {session.number}: {exc}")
        return
    received = session.frames - frames_before
    tally.dashboard_frames.append(received)
    if received == 0:
        tally.error(LIVE_ROUTE, None, time.perf_counter() - started, f"session {session.number}: no update")
        return
    tally.ok(LIVE_ROUTE, 200, time.perf_counter() - started)


# --- Prometheus' and NuFi's own counters ----------------------------------------------------------------

_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>[^}]*)\})? (?P<value>\S+)")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def samples(text: str, name: str) -> list[tuple[dict[str, str], float]]:
    found = []
    for row in text.splitlines():
        match = _SAMPLE.match(row)
        if match and match["name"] == name:
            found.append((dict(_LABEL.findall(match["labels"] or "")), float(match["value"])))
    return found


async def prometheus_queries(client: httpx.AsyncClient, prometheus_url: str) -> Counter[str]:
    """Requests Prometheus has answered on its two query endpoints, by handler and status code."""
    response = await client.get(f"{prometheus_url}/metrics")
    response.raise_for_status()
    counts: Counter[str] = Counter()
    for labels, value in samples(response.text, "prometheus_http_requests_total"):
        if labels.get("handler") in ("/api/v1/query", "/api/v1/query_range"):
            counts[f"{labels['handler']} {labels.get('code', '?')}"] += int(value)
    return counts


async def refreshing_types(client: httpx.AsyncClient, nufi_url: str) -> dict[str, int]:
    """The types NuFi evaluates in the background right now, with their open streams."""
    response = await client.get(f"{nufi_url}/metrics")
    response.raise_for_status()
    streams = {
        labels.get("device_type", "?"): int(value)
        for labels, value in samples(response.text, "nufi_monitoring_streams")
    }
    return {
        labels.get("device_type", "?"): streams.get(labels.get("device_type", "?"), 0)
        for labels, value in samples(response.text, "nufi_monitoring_refreshing")
        if value >= 1
    }


def by_handler(counts: Counter[str], handler: str) -> int:
    return sum(value for key, value in counts.items() if key.split(" ")[0] == handler)


# --- the run --------------------------------------------------------------------------------------------


@dataclass
class Readings:
    rss_before: float | None = None
    rss_window_start: float | None = None
    rss_peak: float | None = None
    rss_end: float | None = None
    prometheus_before: Counter[str] = field(default_factory=Counter)
    prometheus_after: Counter[str] = field(default_factory=Counter)
    refreshing: dict[str, int] = field(default_factory=dict)
    # From the start of the load to the last reading, after the requests in flight at the deadline.
    window: float = 0.0
    sign_in_seconds: float = 0.0
    cpu_before: CpuReading | None = None
    cpu_after: CpuReading | None = None


async def sample_rss(pid: int | None, deadline: float, readings: Readings) -> None:
    while now() < deadline:
        rss = vm_rss_mib(pid)
        if rss is not None:
            readings.rss_peak = max(readings.rss_peak or 0.0, rss)
        await pause_until(now() + RSS_SAMPLE_SECONDS, deadline)


async def refreshing_near_deadline(
    client: httpx.AsyncClient, nufi_url: str, deadline: float, readings: Readings, tally: Tally
) -> None:
    """Which types NuFi evaluates, read while every reader still holds its refresher awake."""
    await pause_until(deadline - 0.5, deadline)
    try:
        readings.refreshing = await refreshing_types(client, nufi_url)
    except httpx.HTTPError as exc:
        tally.error("NuFi's /metrics near the end", None, None, repr(exc))


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


async def queries_per_evaluation(client: httpx.AsyncClient, admin: Tokens) -> dict[str, Metrics]:
    response = await client.get("/api/v1/devices", headers=await admin.headers())
    response.raise_for_status()
    return {str(item["id"]): Metrics.model_validate(item["metrics"]) for item in response.json()["items"]}


def evaluation_cost(metrics: Metrics) -> int:
    """Instant queries one evaluation asks: one per distinct expression of the type."""
    return len(set(metrics.queries().values()))


def range_cost(metrics: Metrics, metric: str) -> int:
    """query_range calls one range request asks: one per series family of the metric."""
    keys = ("memory_used", "memory_total", "memory_free") if metric == "memory" else (metric,)
    return sum(1 for key in metrics.queries() if key in keys)


async def run(plan: Plan, state: dict[str, Any], sandbox: SandboxRun) -> int:
    tally = Tally()
    readings = Readings()
    # Idle connections are let go before uvicorn's 5 s keep-alive ends: reusing one the server is
    # closing fails the request, which a browser would send again and httpx does not.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=2.0)
    nufi_url = state["nufi_url"]
    async with (
        httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as plain,
        httpx.AsyncClient(base_url=nufi_url, timeout=REQUEST_TIMEOUT, limits=limits) as readers,
        httpx.AsyncClient(base_url=nufi_url, timeout=REQUEST_TIMEOUT, limits=limits) as streams,
        httpx.AsyncClient(base_url=nufi_url, timeout=REQUEST_TIMEOUT, limits=limits) as admins,
    ):
        admin = Tokens(plain, state["token_url"], "admin", "admin")
        user = Tokens(plain, state["token_url"], "user", "user")
        await register_lpu(admins, admin)
        devices = await first_snapshot(readers, user)
        types = await queries_per_evaluation(admins, admin)
        pid = program_pid(sandbox, "nufi")
        if pid is None:
            raise SetupError("the NuFi server's PID is not among the sandbox's children")
        readings.rss_before = vm_rss_mib(pid)
        print(
            f"sandbox ready: NuFi at {nufi_url} (pid {pid}, VmRSS {readings.rss_before or 0:.1f} MiB), "
            f"Prometheus at {state['prometheus_url']}; {TYPE_ID} registered: {devices} devices; "
            f"refresh interval {REFRESH_SECONDS:g} s",
            flush=True,
        )
        async with contextlib.AsyncExitStack() as stack:
            sessions = [Session(number) for number in range(plan.dashboard_sessions)]
            if sessions:
                playwright = await stack.enter_async_context(async_playwright())
                # Root in a container: Chromium's own sandbox needs user namespaces it may not have.
                browser = await playwright.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
                )
                stack.push_async_callback(browser.close)
                gate = asyncio.Semaphore(SIGN_INS_AT_ONCE)
                began = time.perf_counter()
                await asyncio.gather(*(sign_in(browser, nufi_url, s, devices, gate, tally) for s in sessions))
                readings.sign_in_seconds = time.perf_counter() - began
                print(
                    f"{sum(s.page is not None for s in sessions)} of {len(sessions)} dashboard sessions "
                    f"signed in, in {readings.sign_in_seconds:.1f} s",
                    flush=True,
                )
            frames_before = [s.frames for s in sessions]
            prometheus_pid = program_pid(sandbox, "prometheus")
            readings.rss_window_start = vm_rss_mib(pid)
            readings.prometheus_before = await prometheus_queries(plain, state["prometheus_url"])
            readings.cpu_before = CpuReading.now(pid, prometheus_pid)
            start = now()
            deadline = start + plan.seconds
            print(f"load running for {plan.seconds:g} s …", flush=True)
            run_id = f"{os.getpid()}"
            workers = [
                *(
                    snapshot_reader(n, readers, user, plan, deadline, tally)
                    for n in range(plan.snapshot_readers)
                ),
                *(range_reader(n, readers, user, plan, deadline, tally) for n in range(plan.range_readers)),
                *(stream_reader(n, streams, user, deadline, tally) for n in range(plan.stream_readers)),
                *(writer(n, admins, admin, plan, deadline, tally, run_id) for n in range(plan.writers)),
                sample_rss(pid, deadline, readings),
                refreshing_near_deadline(plain, nufi_url, deadline, readings, tally),
            ]
            await asyncio.gather(*workers)
            # Read once the requests in flight at the deadline are answered too, so every query they
            # caused is counted; the dashboards keep every refresher awake until then.
            readings.cpu_after = CpuReading.now(pid, prometheus_pid)
            readings.rss_end = vm_rss_mib(pid)
            try:
                readings.prometheus_after = await prometheus_queries(plain, state["prometheus_url"])
            except httpx.HTTPError as exc:
                tally.error("Prometheus' /metrics at the end", None, None, repr(exc))
            readings.window = now() - start
            await asyncio.gather(
                *(still_live(s, before, tally) for s, before in zip(sessions, frames_before, strict=True))
            )
        if program_pid(sandbox, "nufi") != pid:
            tally.error("NuFi server process", None, None, f"pid {pid} is gone: NuFi was restarted")
        report(plan, tally, readings, types, pid)
        if tally.errors:
            log_findings(sandbox.state_dir / "logs" / "nufi.log")
    return 1 if tally.errors else 0


# A warning or worse in NuFi's console log format (`[warning  ]`), or a traceback.
_LOGGED_PROBLEM = re.compile(r"\[(warning|error|critical)\s*\]|Traceback", re.IGNORECASE)


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


# --- the report -----------------------------------------------------------------------------------------


def report(plan: Plan, tally: Tally, readings: Readings, types: dict[str, Metrics], pid: int) -> None:
    tail = readings.window - plan.seconds
    print(
        f"\nload against the sandbox for {plan.seconds:g} s (+{tail:.1f} s for the requests in flight at "
        f"the deadline) on {os.cpu_count()} CPUs, shared by this benchmark, Chromium and the whole "
        f"sandbox (load average at the end {os.getloadavg()[0]:.1f}):\n"
        f"  {plan.snapshot_readers} REST snapshot readers (every {plan.poll_seconds:g} s, If-None-Match), "
        f"{plan.range_readers} range readers (every {plan.range_poll_seconds:g} s), "
        f"{plan.stream_readers} event streams, {plan.dashboard_sessions} dashboard sessions, "
        f"{plan.writers} admin writers (a write every {plan.write_pause:g} s each)\n"
    )
    print(
        f"  {'route':<62} {'requests':>8} {'ok':>7} {'of them 304':>11} {'lost race':>9} "
        f"{'errors':>6} {'p50 ms':>8} {'p99 ms':>9}"
    )
    for name, stats in tally.routes.items():
        p50 = f"{percentile(stats.latencies, 0.5) * 1000:8.1f}" if stats.latencies else f"{'-':>8}"
        p99 = f"{percentile(stats.latencies, 0.99) * 1000:9.1f}" if stats.latencies else f"{'-':>9}"
        print(
            f"  {name:<62} {stats.requests:>8,} {stats.ok:>7,} {stats.not_modified:>11,} {stats.raced:>9,} "
            f"{stats.errors:>6,} {p50} {p99}"
        )
    print(
        "  ok counts 304s (If-None-Match naming the current ETag). lost race: a 409 for a stale revision —\n"
        "  another writer saved the type between this writer's GET and PUT, and the catalog's optimistic\n"
        "  concurrency refused the save as designed (device types carry their revision in the body; the API\n"
        "  has no ETag / If-Match on them). Expected, not an error."
    )

    events = tally.stream_events
    per_stream, gaps = tally.events_per_stream, tally.longest_gaps
    if per_stream:
        print(
            f"\nstream events: {events['snapshot']:,} snapshots over {len(per_stream)} streams "
            f"({statistics.median(per_stream):.0f} per stream, min {min(per_stream)}, max {max(per_stream)}; "
            f"one per evaluation would be about {plan.seconds / REFRESH_SECONDS:.0f}), "
            f"{events['heartbeat']:,} heartbeats, {events['error']:,} error events, {events['end']:,} ends"
        )
        print(
            f"  longest time without a snapshot, per stream: median {statistics.median(gaps):.1f} s, "
            f"max {max(gaps):.1f} s (the refresh interval is {REFRESH_SECONDS:g} s)"
        )
    if tally.dashboard_frames:
        frames = tally.dashboard_frames
        print(
            f"dashboard updates: {sum(frames):,} websocket frames received by {len(frames)} live pages "
            f"during the run ({statistics.median(frames):.0f} per page, min {min(frames)})"
        )
    if tally.snapshots:
        sources = ", ".join(f"{n} from {source}" for source, n in tally.degraded_sources.most_common())
        print(
            f"snapshots carrying errors: {tally.degraded:,} of the {tally.snapshots:,} read (REST bodies and "
            f"stream events){f'; errors {sources}' if sources else ''}"
        )

    print(f"\nNuFi server process (pid {pid}) VmRSS:")
    rows = [("before the load (no dashboard session open)", readings.rss_before)]
    if plan.dashboard_sessions:
        rows.append(("when the clock started (dashboard sessions open)", readings.rss_window_start))
    rows.append((f"peak during the run (read every {RSS_SAMPLE_SECONDS:g} s)", readings.rss_peak))
    rows.append(("at the end of the run", readings.rss_end))
    for label, value in rows:
        print(f"  {label:<52} {_mib(value)}")
    if readings.rss_end is not None and readings.rss_before is not None:
        print(f"  {'change over the run':<52} {readings.rss_end - readings.rss_before:+8.1f} MiB")
    report_cpu(readings)

    report_queries(plan, tally, readings, types)

    samples_shown = [
        f"  {name}: {sample}" for name, stats in tally.routes.items() for sample in stats.samples
    ][:ERROR_SAMPLES_SHOWN]
    print(f"\nerrors: {tally.errors}")
    for line in samples_shown:
        print(line)


def report_cpu(readings: Readings) -> None:
    before, after = readings.cpu_before, readings.cpu_after
    if before is None or after is None or readings.window <= 0:
        return

    def share(first: float | None, last: float | None) -> str:
        if first is None or last is None:
            return "?"
        return f"{last - first:.1f} s ({(last - first) / readings.window * 100:.0f} % of one CPU)"

    total = after.machine_total - before.machine_total
    busy = (after.machine_busy - before.machine_busy) / total * 100 if total else 0.0
    print(
        f"CPU during the run: NuFi {share(before.nufi, after.nufi)}, Prometheus "
        f"{share(before.prometheus, after.prometheus)}, this benchmark's own process "
        f"{share(before.benchmark, after.benchmark)}; the machine {busy:.0f} % busy"
    )


def report_queries(plan: Plan, tally: Tally, readings: Readings, types: dict[str, Metrics]) -> None:
    before, after = readings.prometheus_before, readings.prometheus_after
    instant = by_handler(after, "/api/v1/query") - by_handler(before, "/api/v1/query")
    ranged = by_handler(after, "/api/v1/query_range") - by_handler(before, "/api/v1/query_range")
    failed = {k: after[k] - before.get(k, 0) for k in sorted(after) if not k.endswith(" 200")}
    failed = {k: v for k, v in failed.items() if v}
    intervals = readings.window / REFRESH_SECONDS
    read = sorted(readings.refreshing)
    per_interval = sum(evaluation_cost(types[t]) for t in read if t in types)
    refresher = per_interval * intervals
    lpu = types.get(TYPE_ID)
    lpu_cost = evaluation_cost(lpu) if lpu is not None else 0
    saves = tally.saves
    save_checks = saves * 2 * lpu_cost
    ranges = 0
    if lpu is not None:
        ranges = sum(count * range_cost(lpu, metric) for metric, count in tally.ranges.items())
    readers = plan.snapshot_readers + plan.range_readers + plan.stream_readers + plan.dashboard_sessions
    reader_minutes = readers * readings.window / 60
    snapshot_reads = tally.routes.get(f"GET /api/v1/monitoring/{TYPE_ID}", RouteStats()).requests
    stream_reads = tally.stream_events["snapshot"]
    print(
        f"\nPrometheus queries during the run (its own prometheus_http_requests_total, from its /metrics; "
        f"{', '.join(f'{v} {k}' for k, v in failed.items()) or 'every one'} answered"
        f"{' otherwise than 200' if failed else ' 200'}):"
    )
    print(f"  instant (/api/v1/query)       {instant:>7,}")
    costs = ", ".join(f"{t} {evaluation_cost(types[t])}" for t in read if t in types)
    print(
        f"    meant to: the refreshers {refresher:>7,.0f} = {intervals:.1f} refresh intervals x "
        f"{per_interval} queries per interval (one evaluation of each type being read: {costs or 'none'}"
        f"{'; the dashboard reads every type for its tabs' if plan.dashboard_sessions else ''})"
    )
    raced = sum(stats.raced for stats in tally.routes.values())
    print(
        f"              + {save_checks:,} for the writers' {saves} saves of {TYPE_ID} (the wizard's checks "
        f"again, 2 x {lpu_cost} each)\n"
        f"              + at most {saves * lpu_cost:,} for the first evaluation of each new revision (an "
        "edited type gets a refresher of its own)\n"
        f"              + at most {raced * 2 * lpu_cost:,} for the {raced} lost races (a save that loses at "
        "the database, after its checks, has asked them too)"
    )
    low = refresher + save_checks
    high = low + saves * lpu_cost + raced * 2 * lpu_cost
    print(
        f"              = {low:,.0f} to {high:,.0f}, give or take one interval ({per_interval}): "
        "evaluations fall on instants aligned to the interval"
    )
    print(f"  ranges (/api/v1/query_range)  {ranged:>7,}")
    print(
        f"    meant to: {ranges:,}, one per series family of each range request answered (ranges are not "
        "shared: each request asks Prometheus)"
    )
    if reader_minutes > 0:
        print(
            f"  instant queries per reader-minute: {instant / reader_minutes:.2f} measured, "
            f"{refresher / reader_minutes:.2f} from the refreshers alone ({readers} readers over "
            f"{readings.window / 60:.2f} min; the refreshers' share does not grow with readers)"
        )
        unshared = (snapshot_reads + stream_reads) * lpu_cost
        print(
            f"  had every REST read and stream event evaluated on its own: {unshared:,} instant queries "
            f"({snapshot_reads:,} reads + {stream_reads:,} events x {lpu_cost})"
        )


def _mib(value: float | None) -> str:
    return f"{value:8.1f} MiB" if value is not None else "       ? (not readable)"


# --- entry point ----------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load",
        description="Load the one-command sandbox with monitoring readers, dashboard sessions and admin "
        "writers at once, and print requests, errors and latency per route, stream events, NuFi's RSS "
        "and the queries Prometheus received. Exits 1 on any error, never on time.",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the load runs (default 60)")
    parser.add_argument(
        "--readers", type=int, default=200, help="monitoring readers: REST, range and streams (default 200)"
    )
    parser.add_argument(
        "--stream-share",
        type=float,
        default=0.25,
        help="share of the readers holding a stream (default 0.25)",
    )
    parser.add_argument(
        "--range-share", type=float, default=0.25, help="share of the readers reading /range (default 0.25)"
    )
    parser.add_argument(
        "--poll-seconds",
        type=float,
        default=REFRESH_SECONDS,
        help=f"time between a REST reader's reads (default {REFRESH_SECONDS:g} s, the refresh interval)",
    )
    parser.add_argument(
        "--range-poll-seconds",
        type=float,
        default=5.0,
        help="a range reader's time between reads (default 5)",
    )
    parser.add_argument(
        "--dashboard-sessions",
        type=int,
        default=20,
        help="signed-in browser sessions holding the live monitoring page (default 20)",
    )
    parser.add_argument("--writers", type=int, default=5, help="admin writers (default 5)")
    parser.add_argument(
        "--write-pause", type=float, default=2.0, help="a writer's time between writes (default 2)"
    )
    args = parser.parse_args(argv)
    for name in ("seconds", "poll_seconds", "range_poll_seconds", "write_pause"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    for name in ("readers", "dashboard_sessions", "writers"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must not be negative")
    shares = (args.stream_share, args.range_share)
    if min(shares) < 0 or sum(shares) > 1:
        parser.error("--stream-share and --range-share must be between 0 and 1, together at most 1")
    return args


def plan_of(args: argparse.Namespace) -> Plan:
    streams = round(args.readers * args.stream_share)
    ranges = min(args.readers - streams, round(args.readers * args.range_share))
    return Plan(
        seconds=args.seconds,
        snapshot_readers=args.readers - streams - ranges,
        range_readers=ranges,
        stream_readers=streams,
        dashboard_sessions=args.dashboard_sessions,
        writers=args.writers,
        poll_seconds=args.poll_seconds,
        range_poll_seconds=args.range_poll_seconds,
        write_pause=args.write_pause,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = plan_of(args)
    # SIGTERM stops the run as Ctrl-C does, so the sandbox is stopped in both cases; SIGINT is set too,
    # since a job a script puts in the background inherits it ignored.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    work = Path(tempfile.mkdtemp(prefix="nufi-load-", dir="/tmp"))
    sandbox: SandboxRun | None = None
    try:
        print(f"starting the sandbox in {work} …", flush=True)
        sandbox = start_sandbox(work)

        async def everything() -> int:
            assert sandbox is not None
            state = await sandbox_ready(sandbox)
            return await run(plan, state, sandbox)

        return asyncio.run(everything())
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: stopping the sandbox", file=sys.stderr)
        return 130
    finally:
        if sandbox is not None:
            sandbox.cleanup()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
