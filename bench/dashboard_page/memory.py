"""2. Server memory per open page: rounds of live monitoring pages opened, held and closed, with the
server's footprint before, during and after each, and what the rounds left behind."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import statistics
import time

from playwright.async_api import BrowserContext, Page, expect

from bench.common.printing import line
from bench.common.proc import rss_mib
from bench.dashboard_page.footprint import (
    RELEASE_SECONDS,
    SETTLE_SECONDS,
    Footprint,
    elements_released,
    settle_clients,
    type_changes,
)
from bench.dashboard_page.pages import FIRST_ROWS, open_monitoring
from bench.dashboard_page.server import Server

OPEN_PAGES = 20
# The figures of the summary after the rounds, each read after malloc_trim(0): label and attribute.
TRIMMED_FIGURES = (
    ("RSS", "rss"),
    ("  of it anonymous", "anon"),
    ("  of it file-backed", "file"),
    ("malloc in use", "malloc_used"),
    ("malloc free in its heaps", "malloc_free"),
    ("pymalloc arenas held (1 MiB each)", "pymalloc_arenas"),
    ("pymalloc bytes in blocks", "pymalloc_used"),
)


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
        closed, trimmed = await measured_round(
            number, context, server, hold_seconds, before, trims[-1] if trims else before
        )
        closes.append(closed)
        trims.append(trimmed)
    print_rounds(before, closes, trims)


async def measured_round(
    number: int,
    context: BrowserContext,
    server: Server,
    hold_seconds: float,
    before: Footprint,
    previous: Footprint,
) -> tuple[Footprint, Footprint]:
    """One round and the readings after it: the footprint once its pages are closed, and after
    `malloc_trim(0)`."""
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
    line("  object types changed since the previous trimmed reading", type_changes(previous, trimmed))
    line(
        "  growth per open page while held (RSS / Python blocks)",
        f"{(held.rss - before.rss) / OPEN_PAGES:8.2f} MiB / "
        f"{(held.blocks - before.blocks) / OPEN_PAGES:,.0f} blocks",
    )
    return closed, trimmed


def print_rounds(before: Footprint, closes: list[Footprint], trims: list[Footprint]) -> None:
    """What the first round left, each trimmed reading, and what the later rounds added."""
    first, last = closes[0], closes[-1]
    line(
        "left after the first round closed (vs before opening)",
        f"{first.rss - before.rss:+8.1f} MiB, {first.blocks - before.blocks:+,} Python blocks, "
        f"{first.elements - before.elements:+,} elements",
    )
    readings = [before, *trims]
    for label, attribute in TRIMMED_FIGURES:
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
    if len(closes) > 1:
        # Memory the allocator keeps for reuse is reused by the next round; a leak grows every round.
        line(
            f"growth from the first round's close to round {len(closes)}'s",
            f"{last.rss - first.rss:+8.1f} MiB, {last.blocks - first.blocks:+,} Python blocks, "
            f"{last.elements - first.elements:+,} elements",
        )


async def one_round(
    context: BrowserContext, server: Server, hold_seconds: float, baseline: int
) -> tuple[Footprint, Footprint]:
    """Open `OPEN_PAGES` live pages, hold them, close them: the footprint while held and after."""
    pages: list[Page] = []
    try:
        opened = await open_pages(context, server, pages)
        held = await hold(server, pages, hold_seconds, opened.rss)
    finally:
        for page in pages:
            await page.close()
    return held, await after_closing(server, baseline)


async def open_pages(context: BrowserContext, server: Server, pages: list[Page]) -> Footprint:
    """`OPEN_PAGES` live pages, each added to `pages` as it opens: the footprint once all are open."""
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
    return opened


async def hold(server: Server, pages: list[Page], hold_seconds: float, rss: float) -> Footprint:
    """`pages` held open for `hold_seconds` from an RSS of `rss`: the footprint at the end."""
    lowest = highest = rss
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
    return held


async def after_closing(server: Server, baseline: int) -> Footprint:
    """The footprint once NiceGUI has deleted the closed pages' clients and let go of their elements
    (or `RELEASE_SECONDS` have passed)."""
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
    return closed
