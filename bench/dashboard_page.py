"""The dashboard's monitoring page over 1,000 nodes x 8 GPUs in a real browser: how soon it shows its
content, and what each open page costs the server.

The monitoring page promises that a 1,000-node type costs the browser one page of rows and the server
one shared snapshot per refresh interval however many pages are open (`nufi.ui.pages.monitoring`).
This benchmark checks what a person sees and what the server pays, in one run, against its own world:
a Prometheus scraping every 15 s, the mock exporter in its DCGM profile simulating 1,000 nodes with
8 GPUs each, a dev cluster with the same nodes and a few hundred pods holding GPUs, and the dev
identity provider with the sandbox's realm (its `nufi-dashboard` client). NuFi is the app
`nufi serve` runs (`nufi.cli.build_server`: the API with the dashboard mounted), served by uvicorn on
127.0.0.1 in a process of its own (`bench.dashboard_server`, started and stopped by PID);
Debian's Chromium, headless and driven by Playwright, is the browser. It prints:

1. Time to content: signed in once (through the identity provider's login form), then `--runs`
   times `/?type=nvidia-gpu` in a fresh page of the signed-in browser context, from `page.goto` to
   the devices table holding its first rows and the devices card showing 8000 (Playwright's
   `expect(...).to_contain_text`): median and max (goal <= 1 s), with the time `page.goto` itself
   took (the HTML and its load event) and, for reference, to the chart visible (each page is
   closed once its chart is there). For reference, in the same run: the plain API call `GET
   /api/v1/monitoring/nvidia-gpu?limit=25` (bearer token), the API call for the data of the page's
   chart (`.../range?metric=utilization&by=node`, the last hour per node), and the HTML's size.
2. Server memory per open page: VmRSS of the server process alone (anonymous and file-backed, from
   /proc; the Playwright client and Chromium run apart), glibc malloc's bytes in use and free, Python's
   allocated blocks (`sys.getallocatedblocks`, after a
   collection), and the NiceGUI clients and elements alive, before opening pages (once the pages of
   part 1 are gone), then `--rounds` times: after opening 20 monitoring pages (each a browser page kept
   open, updating live), after holding them for `--hold-seconds`, and after closing them all, once
   NiceGUI has deleted their clients (after its reconnect timeout) and their elements are gone (a
   deleted page's timers let go of it when their last sleep ends; at most 120 s is waited). It prints
   the growth per open page, what is left after the first round, and what the later rounds added to
   that: elements or Python blocks left behind would be objects still referenced. RSS is also shown
   after `malloc_trim(0)` (from a trimmed start), which has glibc return the free memory it keeps:
   what stays after that is memory in use outside Python's objects.

It never fails on time. Run:
`.venv/bin/python -m bench.dashboard_page [--runs N] [--hold-seconds N] [--rounds N]
[--server-env NAME=VALUE ...]` (defaults 7, 300 and 2; e.g. `--server-env MALLOC_ARENA_MAX=2`);
startup takes under a minute, a run with `--hold-seconds 60` about eight.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import math
import re
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, BrowserContext, Locator, Page, async_playwright, expect
from pydantic import SecretStr

from bench.dashboard_server import CLIENTS_PATH, FOOTPRINT_PATH, settings_env
from bench.monitoring_snapshot import (
    DEVICES_PER_NODE,
    NODES,
    PODS,
    SCRAPE_INTERVAL_SECONDS,
    start_cluster,
    start_exporter,
    wait_for_every_device,
)
from nufi.config import Settings
from nufi.logging import configure_logging
from nufi.monitoring import MonitoringSettings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from nufi_sandbox.sandbox.components import DASHBOARD_CLIENT, DASHBOARD_SECRET, NUFI_AUDIENCE, REALM_FILE

CHROMIUM = "/usr/bin/chromium"
TYPE_ID = "nvidia-gpu"
USERNAME = "user"
OPEN_PAGES = 20
API_RUNS = 7
API_PAGE_NODES = 25
# Content a page must show: rows of the devices table, and the devices card's count.
FIRST_ROWS = re.compile(r"gpu-\d{4}")
DEVICES = str(NODES * DEVICES_PER_NODE)
CONTENT_TIMEOUT_MS = 120_000
# NiceGUI deletes a disconnected client after `reconnect_timeout` (10 s in `mount_dashboard`), and one
# that never connected (a page closed before its socket did) when pruning clients older than 60 s.
SETTLE_SECONDS = 90.0
# Beyond that, how long a closed page's elements may take to go (its timers' last sleep).
RELEASE_SECONDS = 120.0
GOAL_SECONDS = 1.0
# The server process runs `bench.dashboard_server` from the repository's root.
REPO = Path(__file__).resolve().parent.parent
# Object types whose count changed most between two footprints, printed per round, among the
# most numerous types the server counts.
TYPES_SHOWN = 8
TYPES_COUNTED = 400
MIB = 1024 * 1024


@dataclass
class World:
    prometheus: PrometheusServer
    cluster: DevClusterProcess
    identity: IdentityProviderProcess
    work: Path
    # Signs the dashboard's sessions; one per run.
    session_secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def settings(self) -> Settings:
        return Settings(
            database_url=SecretStr(f"sqlite+aiosqlite:///{self.work / 'nufi.db'}"),
            prometheus_url=self.prometheus.url,
            prometheus_timeout_seconds=60,
            kubeconfig=self.cluster.kubeconfig,
            oidc_issuer=self.identity.issuer,
            oidc_audience=NUFI_AUDIENCE,
            oidc_client_id=DASHBOARD_CLIENT,
            oidc_client_secret=SecretStr(DASHBOARD_SECRET),
            dashboard_session_secret=SecretStr(self.session_secret),
            monitoring_scrape_interval_seconds=SCRAPE_INTERVAL_SECONDS,
            log_level="warning",
        )


@dataclass
class Server:
    """`nufi serve`'s app in a process of its own (`bench.dashboard_server`), stopped by PID."""

    process: ManagedProcess
    url: str

    @property
    def pid(self) -> int:
        return self.process.pid

    async def footprint(self, **params: int) -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=self.url, timeout=120.0) as client:
            response = await client.get(FOOTPRINT_PATH, params=params)
            response.raise_for_status()
            answer: dict[str, Any] = response.json()
            return answer


@contextlib.asynccontextmanager
async def serving(settings: Settings, work: Path, extra_env: dict[str, str]) -> AsyncIterator[Server]:
    """`nufi serve`'s app (API and dashboard) served by uvicorn on a free loopback port in a process
    of its own, with its lifespan (NiceGUI's wraps the app's), until its cluster cache serves."""
    port = free_port()
    env = settings_env(settings) | {"NUFI_HOST": "127.0.0.1", "NUFI_PORT": str(port)} | extra_env
    argv = [sys.executable, "-m", "bench.dashboard_server"]
    process = ManagedProcess("bench-nufi", argv, log_dir=work, env=env, cwd=REPO).start()
    server = Server(process, f"http://127.0.0.1:{port}")
    try:

        async def ready() -> bool:
            return bool((await server.footprint())["cluster_serving"])

        await process.wait_ready_async(ready, 120.0, "serving with its cluster cache synced")
        yield server
    finally:
        await process.stop_async(grace=15.0)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def line(label: str, value: str) -> None:
    print(f"  {label:<66} {value}", flush=True)


async def content_shown(page: Page) -> None:
    """The devices table holds its first rows and the devices card counts every device."""
    await expect(page.get_by_test_id("devices-table")).to_contain_text(FIRST_ROWS, timeout=CONTENT_TIMEOUT_MS)
    await expect(page.get_by_test_id("card-devices")).to_contain_text(DEVICES, timeout=CONTENT_TIMEOUT_MS)


def chart_or_error(page: Page) -> Locator:
    return page.get_by_test_id("chart").or_(page.get_by_test_id("chart-error"))


async def sign_in(context: BrowserContext, url: str) -> None:
    page = await context.new_page()
    try:
        await page.goto(f"{url}/?type={TYPE_ID}")
        await expect(page.locator("#kc-form-login")).to_be_visible(timeout=CONTENT_TIMEOUT_MS)
        await page.fill("#username", USERNAME)
        await page.fill("#password", USERNAME)
        await page.click("#kc-login")
        await expect(page.get_by_test_id("tab-nvidia-gpu")).to_be_visible(timeout=CONTENT_TIMEOUT_MS)
        await content_shown(page)
        await expect(chart_or_error(page)).to_be_visible(timeout=CONTENT_TIMEOUT_MS)
        tabs = page.locator('[data-testid^="tab-"]')
        ids = [await tabs.nth(i).get_attribute("data-testid") for i in range(await tabs.count())]
        print(f"signed in as {USERNAME!r}; tabs shown: {', '.join(str(i) for i in ids)}", flush=True)
    finally:
        await page.close()


@dataclass
class Opened:
    page: Page
    # Seconds from `page.goto`: to its return (the HTML and its load event), to the table and cards,
    # and to the chart (built last, after the history query).
    loaded: float
    shown: float
    charted: float
    # The HTML the server answered, in bytes.
    html: int
    # Whether the chart showed an error instead of lines.
    chart_failed: bool = False


async def open_monitoring(context: BrowserContext, url: str) -> Opened:
    """A fresh page at the NVIDIA tab, left open once its chart is there too."""
    page = await context.new_page()
    started = time.perf_counter()
    response = await page.goto(f"{url}/?type={TYPE_ID}")
    loaded = time.perf_counter() - started
    await content_shown(page)
    shown = time.perf_counter() - started
    # Drawn, or its error shown (a history query Prometheus gave up on): either way the page is built.
    await expect(chart_or_error(page)).to_be_visible(timeout=CONTENT_TIMEOUT_MS)
    charted = time.perf_counter() - started
    chart_failed = await page.get_by_test_id("chart-error").count() > 0
    html = len(await response.body()) if response is not None else 0
    return Opened(page, loaded, shown, charted, html, chart_failed)


async def api_calls(client: httpx.AsyncClient, path: str, params: dict[str, str]) -> tuple[list[float], int]:
    """`API_RUNS` timed GETs of `path` (after one that opens the connection); the body's size."""
    times: list[float] = []
    size = 0
    for run in range(API_RUNS + 1):
        started = time.perf_counter()
        response = await client.get(path, params=params)
        took = time.perf_counter() - started
        response.raise_for_status()
        size = len(response.content)
        if run:
            times.append(took)
    return times, size


async def time_to_content(context: BrowserContext, url: str, runs: int, token: str) -> None:
    opened: list[Opened] = []
    for _ in range(runs):
        # Closed once its chart is there: a page closed sooner leaves its build running for nobody.
        opened.append(await open_monitoring(context, url))
        await opened[-1].page.close()
    loads = [o.loaded for o in opened]
    contents = [o.shown for o in opened]
    charts = [o.charted for o in opened]
    async with httpx.AsyncClient(
        base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60.0
    ) as client:
        api, api_size = await api_calls(
            client, f"/api/v1/monitoring/{TYPE_ID}", {"limit": str(API_PAGE_NODES)}
        )
        chart, chart_size = await api_calls(
            client, f"/api/v1/monitoring/{TYPE_ID}/range", {"metric": "utilization", "by": "node"}
        )
    median = statistics.median(contents)
    print(f"\n1. time to content of /?type={TYPE_ID} in a fresh page of the signed-in context ({runs} runs)")
    line(
        "goto to table rows and devices card = 8000: median / max",
        f"{ms(median)} / {ms(max(contents)).strip()}",
    )
    line(
        f"  goal <= {GOAL_SECONDS:g} s",
        "met" if median <= GOAL_SECONDS else f"not met ({median / GOAL_SECONDS:.1f}x the goal)",
    )
    line(
        "of which page.goto (HTML and load event): median / max",
        f"{ms(statistics.median(loads))} / {ms(max(loads)).strip()}",
    )
    line(
        "for reference: goto to the chart visible (or its error): median / max",
        f"{ms(statistics.median(charts))} / {ms(max(charts)).strip()}"
        + (
            f"  ({failed} of {runs} charts showed an error)"
            if (failed := sum(o.chart_failed for o in opened))
            else ""
        ),
    )
    line("every run", ", ".join(f"{s * 1000:.0f}" for s in contents) + " ms")
    line(
        f"for reference: GET /api/v1/monitoring/{TYPE_ID}?limit={API_PAGE_NODES}: median / max",
        f"{ms(statistics.median(api))} / {ms(max(api)).strip()}  ({API_RUNS} calls, keep-alive, "
        f"{api_size / 1024:.0f} KiB)",
    )
    line(
        "for reference: the page's chart data, GET .../range?metric=utilization&by=node (1 h)",
        f"{ms(statistics.median(chart))} / {ms(max(chart)).strip()}  ({chart_size / 1024:.0f} KiB)",
    )
    line("for reference: the page's HTML as the server sent it", f"{opened[-1].html / 1024:8.0f} KiB")


async def settle_clients(server: Server, baseline: int, seconds: float) -> None:
    """Wait (at most `seconds`) until NiceGUI is back to `baseline` clients in the server."""
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=server.url, timeout=60.0) as client:
        while time.monotonic() < deadline:
            response = await client.get(CLIENTS_PATH)
            response.raise_for_status()
            if int(response.json()["clients"]) <= baseline:
                return
            await asyncio.sleep(0.5)


def status_mib(pid: int) -> dict[str, float]:
    """VmRSS and its anonymous and file-backed parts of process `pid`, in MiB."""
    found: dict[str, float] = {}
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = row.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            found[key] = int(value.split()[0]) / 1024
    return found


def rss_mib(pid: int) -> float:
    return status_mib(pid).get("VmRSS", math.nan)


@dataclass(frozen=True)
class Footprint:
    """What the server process holds at one moment: RSS (what the OS sees; anonymous and file-backed),
    what glibc's malloc has handed out (in use) and keeps free in its heaps, Python's allocated blocks
    (what the interpreter still holds, after a collection), NiceGUI clients and elements."""

    rss: float
    anon: float
    file: float
    malloc_used: float
    malloc_free: float
    pymalloc_arenas: float
    pymalloc_highwater: float
    pymalloc_used: float
    blocks: int
    clients: int
    elements: int
    threads: int
    types: dict[str, int] = field(default_factory=dict)
    traced: float | None = None

    @classmethod
    async def of(cls, server: Server, *, trim: bool = False) -> Footprint:
        """After a collection (and `malloc_trim(0)` with `trim`), the object types counted too."""
        answer = await server.footprint(trim=int(trim), types=TYPES_COUNTED, traced=1)
        status = status_mib(server.pid)
        malloc = answer["malloc"]
        pymalloc = answer.get("pymalloc", {})
        traced = answer.get("traced_bytes")
        return cls(
            rss=status["VmRSS"],
            anon=status["RssAnon"],
            file=status["RssFile"],
            malloc_used=(malloc.get("in_use_bytes", 0) + malloc.get("mmapped_bytes", 0)) / MIB,
            malloc_free=malloc.get("free_bytes", 0) / MIB,
            # pymalloc's arenas are 1 MiB each (CPython 3.10+).
            pymalloc_arenas=float(pymalloc.get("arenas", 0)),
            pymalloc_highwater=float(pymalloc.get("arenas_highwater", 0)),
            pymalloc_used=pymalloc.get("allocated_bytes", 0) / MIB,
            blocks=int(answer["blocks"]),
            clients=int(answer["clients"]),
            elements=int(answer["elements"]),
            threads=int(answer["threads"]),
            types={str(k): int(v) for k, v in answer.get("types", {}).items()},
            traced=None if traced is None else int(traced) / MIB,
        )

    def describe(self) -> str:
        return (
            f"{self.rss:7.1f} MiB RSS ({self.anon:.1f} anonymous, {self.file:.1f} file), malloc "
            f"{self.malloc_used:.1f} in use / {self.malloc_free:.1f} free, pymalloc "
            f"{self.pymalloc_arenas:.0f} arenas ({self.pymalloc_highwater:.0f} at most, "
            f"{self.pymalloc_used:.1f} MiB in blocks), {self.blocks:,} Python blocks, "
            f"{self.clients} NiceGUI clients, {self.elements:,} elements, {self.threads} threads"
            + ("" if self.traced is None else f", tracemalloc {self.traced:.1f} MiB")
        )


def type_changes(earlier: Footprint, later: Footprint) -> str:
    """The object types whose count changed most from `earlier` to `later`."""
    names = set(earlier.types) | set(later.types)
    changes = {name: later.types.get(name, 0) - earlier.types.get(name, 0) for name in names}
    biggest = sorted((c for c in changes.items() if c[1]), key=lambda c: -abs(c[1]))[:TYPES_SHOWN]
    return ", ".join(f"{name} {change:+,}" for name, change in biggest) or "none"


async def one_round(
    context: BrowserContext, server: Server, hold_seconds: float, baseline: int
) -> tuple[Footprint, Footprint]:
    """Open `OPEN_PAGES` live pages, hold them, close them: the footprint while held and after."""
    pages: list[Page] = []
    try:
        shown: list[float] = []
        failed = 0
        for _ in range(OPEN_PAGES):
            one = await open_monitoring(context, server.url)
            pages.append(one.page)
            shown.append(one.shown)
            failed += one.chart_failed
        opened = await Footprint.of(server)
        line(
            f"  after opening {OPEN_PAGES} pages",
            f"{opened.describe()}  (time to content while opening: median "
            f"{statistics.median(shown) * 1000:.0f} ms, max {max(shown) * 1000:.0f} ms; "
            f"{failed} charts showed an error)",
        )
        lowest = highest = opened.rss
        deadline = time.monotonic() + hold_seconds
        while time.monotonic() < deadline:
            await asyncio.sleep(min(5.0, max(0.0, deadline - time.monotonic())))
            now = rss_mib(server.pid)
            lowest, highest = min(lowest, now), max(highest, now)
        held = await Footprint.of(server)
        # Every page still live: its table still holds rows.
        live = 0
        for page in pages:
            with contextlib.suppress(AssertionError):
                await expect(page.get_by_test_id("devices-table")).to_contain_text(FIRST_ROWS, timeout=5_000)
                live += 1
        line(
            f"  after holding them {hold_seconds:g} s",
            f"{held.describe()}  (RSS during the hold {lowest:.1f}-{highest:.1f} MiB; "
            f"{live}/{OPEN_PAGES} pages still showing rows)",
        )
    finally:
        for page in pages:
            await page.close()
    closed_at = time.monotonic()
    await settle_clients(server, 0, SETTLE_SECONDS)
    released = await elements_released(server, baseline, RELEASE_SECONDS)
    closed = await Footprint.of(server)
    took = time.monotonic() - closed_at
    line(
        f"  {took:.0f} s after closing them all",
        closed.describe()
        + (
            "" if released else f"  (still above the {baseline:,} before opening after {RELEASE_SECONDS:g} s)"
        ),
    )
    return held, closed


async def elements_released(server: Server, baseline: int, seconds: float) -> bool:
    """Wait (at most `seconds`) until the server holds no more NiceGUI elements than `baseline`.

    A deleted client's timers hold their elements until their current sleep ends (the session check
    sleeps 30 s), so elements go some seconds after their client; ones that never go are a leak."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if int((await server.footprint())["elements"]) <= baseline:
            return True
        await asyncio.sleep(2.0)
    return False


async def memory_per_page(context: BrowserContext, server: Server, hold_seconds: float, rounds: int) -> None:
    print(
        f"\n2. server memory per open page: the server process alone (pid {server.pid}: uvicorn, NuFi "
        f"and its refreshers; the Playwright client and Chromium run apart), {OPEN_PAGES} monitoring "
        f"pages, {rounds} rounds",
        flush=True,
    )
    # The pages of part 1 are gone once NiceGUI has pruned their clients.
    await settle_clients(server, 0, SETTLE_SECONDS)
    # Measured from a trimmed start, so what rounds leave is compared like with like.
    before = await Footprint.of(server, trim=True)
    line("before opening pages (after malloc_trim(0))", before.describe())
    closes: list[Footprint] = []
    trims: list[Footprint] = []
    for number in range(1, rounds + 1):
        print(f"  round {number}", flush=True)
        # Each round in a browser context of its own, closed after it (signed in with the first
        # context's cookies), so the browser holds nothing of earlier rounds for the server.
        own = await context.browser.new_context(storage_state=await context.storage_state())  # type: ignore[union-attr]
        try:
            held, closed = await one_round(own, server, hold_seconds, before.elements)
        finally:
            await own.close()
        # What the C allocator keeps after Python freed the pages' objects, given back on request:
        # what stays is memory still in use (or pages of a heap glibc cannot shrink).
        trimmed = await Footprint.of(server, trim=True)
        line("  after malloc_trim(0), its context closed too", trimmed.describe())
        line(
            "  object types changed since the previous trimmed reading",
            type_changes(trims[-1] if trims else before, trimmed),
        )
        closes.append(closed)
        trims.append(trimmed)
        line(
            "  growth per open page while held (RSS / Python blocks)",
            f"{(held.rss - before.rss) / OPEN_PAGES:8.2f} MiB / "
            f"{(held.blocks - before.blocks) / OPEN_PAGES:,.0f} blocks",
        )
    first, last = closes[0], closes[-1]
    line(
        "left after the first round closed (vs before opening)",
        f"{first.rss - before.rss:+8.1f} MiB, {first.blocks - before.blocks:+,} Python blocks, "
        f"{first.elements - before.elements:+,} elements",
    )
    readings = [before, *trims]
    for label, attribute in (
        ("RSS", "rss"),
        ("  of it anonymous", "anon"),
        ("  of it file-backed", "file"),
        ("malloc in use", "malloc_used"),
        ("malloc free in its heaps", "malloc_free"),
        ("pymalloc arenas held (1 MiB each)", "pymalloc_arenas"),
        ("pymalloc bytes in blocks", "pymalloc_used"),
    ):
        figures: list[float] = [getattr(f, attribute) for f in readings]
        steps = ", ".join(f"{b - a:+.1f}" for a, b in itertools.pairwise(figures))
        line(
            f"after malloc_trim(0), {label}: before / each round (MiB)",
            " / ".join(f"{x:.1f}" for x in figures) + f"  (steps {steps})",
        )
    line(
        "after malloc_trim(0), Python blocks: before / each round",
        " / ".join(f"{f.blocks:,}" for f in readings),
    )
    if rounds > 1:
        # Memory the allocator keeps for reuse is reused by the next round; a leak grows every round.
        line(
            f"growth from the first round's close to round {rounds}'s",
            f"{last.rss - first.rss:+8.1f} MiB, {last.blocks - first.blocks:+,} Python blocks, "
            f"{last.elements - first.elements:+,} elements",
        )


async def measure(
    world: World, runs: int, hold_seconds: float, rounds: int, server_env: dict[str, str]
) -> None:
    settings = world.settings
    token = await asyncio.to_thread(world.identity.password_token, USERNAME, USERNAME)
    async with serving(settings, world.work, server_env) as server, async_playwright() as playwright:
        print(
            f"NuFi (API and dashboard) at {server.url}, uvicorn in process {server.pid}"
            + (f" (environment {' '.join(f'{k}={v}' for k, v in server_env.items())})" if server_env else "")
            + f"; refresh interval {MonitoringSettings.from_settings(settings).refresh_seconds:g} s; "
            f"RSS {rss_mib(server.pid):.1f} MiB",
            flush=True,
        )
        # Root in a container: Chromium's own sandbox needs user namespaces it may not have.
        browser: Browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        try:
            context = await browser.new_context(locale="en-US", viewport={"width": 1400, "height": 900})
            await sign_in(context, server.url)
            await time_to_content(context, server.url, runs, token)
            await memory_per_page(context, server, hold_seconds, rounds)
            await context.close()
        finally:
            await browser.close()


def environment(value: str) -> tuple[str, str]:
    name, equals, setting = value.partition("=")
    if not name or not equals:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {value!r}")
    return name, setting


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7, help="timed openings of the page")
    parser.add_argument(
        "--hold-seconds", type=float, default=300.0, help=f"how long the {OPEN_PAGES} pages stay open"
    )
    parser.add_argument("--rounds", type=int, default=2, help="times the pages are opened, held and closed")
    parser.add_argument(
        "--server-env",
        type=environment,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set in the server process' environment (MALLOC_ARENA_MAX=2, NUFI_BENCH_TRACEMALLOC=1)",
    )
    args = parser.parse_args()
    configure_logging("console", "warning")
    with tempfile.TemporaryDirectory(prefix="nufi-bench-dashboard-") as scratch:
        work = Path(scratch)
        exporter: ManagedProcess | None = None
        cluster: DevClusterProcess | None = None
        identity: IdentityProviderProcess | None = None
        prometheus = PrometheusServer(
            scrape_interval=f"{SCRAPE_INTERVAL_SECONDS}s", work_dir=work / "prometheus"
        )
        try:
            print(
                f"world: {NODES:,} nodes x {DEVICES_PER_NODE} GPUs = {NODES * DEVICES_PER_NODE:,} devices "
                f"(mock exporter, DCGM profile), a dev cluster with the same nodes and {PODS} pods "
                f"holding GPUs, Prometheus scraping every {SCRAPE_INTERVAL_SECONDS} s, the dev identity "
                f"provider with the sandbox realm; browser {CHROMIUM} headless (Playwright); "
                f"--runs {args.runs}, --hold-seconds {args.hold_seconds:g}, --rounds {args.rounds}; "
                "starting it",
                flush=True,
            )
            exporter, address = start_exporter(work)
            cluster = start_cluster(work)
            identity = IdentityProviderProcess(work / "idp", users_file=REALM_FILE).start()
            prometheus.start()
            prometheus.set_jobs(
                [ScrapeJob("dcgm", [address], labels={"pod": "dcgm-exporter", "namespace": "gpu"})]
            )
            asyncio.run(wait_for_every_device(prometheus))
            world = World(prometheus, cluster, identity, work)
            asyncio.run(measure(world, args.runs, args.hold_seconds, args.rounds, dict(args.server_env)))
        finally:
            prometheus.stop()
            for process in (identity, cluster, exporter):
                if process is not None:
                    process.stop()


if __name__ == "__main__":
    main()
