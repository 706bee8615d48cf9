"""A warm phase: readers back to back for a while, and what Prometheus and NuFi counted meanwhile,
measured between two moments clear of an evaluation in flight."""

from __future__ import annotations

import asyncio
import math
import re
import statistics
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass

import httpx

from bench.common.printing import line, ms
from bench.common.proc import rss_mib

QUERY_REQUESTS = re.compile(
    r'^prometheus_http_requests_total\{[^}]*handler="/api/v1/query"[^}]*\}\s+(\S+)', re.M
)


@dataclass
class Reads:
    latencies: list[float]
    seconds: float
    failures: int = 0

    @property
    def per_second(self) -> float:
        return len(self.latencies) / self.seconds

    def percentile(self, p: int) -> float:
        if len(self.latencies) < 2:
            return self.latencies[0] if self.latencies else math.nan
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[p - 1]


async def drive(readers: int, seconds: float, read: Callable[[], Awaitable[bool]]) -> Reads:
    """`readers` loops calling `read` back to back for `seconds`; `read` returns False on a failure."""
    latencies: list[float] = []
    failures = 0
    started = time.perf_counter()
    deadline = started + seconds

    async def reader() -> None:
        nonlocal failures
        while time.perf_counter() < deadline:
            begun = time.perf_counter()
            ok = await read()
            latencies.append(time.perf_counter() - begun)
            failures += not ok

    await asyncio.gather(*(reader() for _ in range(readers)))
    return Reads(latencies, time.perf_counter() - started, failures)


async def query_requests(client: httpx.AsyncClient) -> float:
    """Instant queries Prometheus has answered since it started (its own counter)."""
    response = await client.get("/metrics")
    response.raise_for_status()
    return sum(float(value) for value in QUERY_REQUESTS.findall(response.text))


async def settle(interval: float, latest: Callable[[], Awaitable[float]]) -> None:
    """Wait until the evaluation of the last refresh instant has landed, so none is in flight;
    `latest` is the time of the snapshot a read gets now."""
    deadline = time.monotonic() + 2 * interval
    while time.monotonic() < deadline:
        tick = math.floor(time.time() / interval) * interval
        if await latest() >= tick:
            return
        await asyncio.sleep(0.2)


def refresh_instants(start: float, end: float, interval: float) -> int:
    """Aligned refresh instants in (start, end]: the evaluations a phase should see."""
    return math.floor(end / interval) - math.floor(start / interval)


@dataclass
class Phase:
    name: str
    reads: Reads
    queries: float
    instants: int
    evaluations: float
    evaluation_seconds: float
    # This process' RSS when the readers stopped.
    rss_mib: float
    # Over HTTP, the server's own time for the snapshot requests (count, seconds).
    handled: tuple[float, float] | None = None


async def phase(
    name: str,
    readers: int,
    seconds: float,
    read: Callable[[], Awaitable[bool]],
    prometheus: httpx.AsyncClient,
    evaluations: Callable[[], Awaitable[tuple[float, float]]],
    latest: Callable[[], Awaitable[float]],
    interval: float,
    alongside: Callable[[], Coroutine[object, object, None]] | None = None,
    handling: Callable[[], Awaitable[tuple[float, float]]] | None = None,
) -> Phase:
    """`readers` readers for `seconds`, with `alongside` (if any) running from their start;
    `handling` is the server's (count, seconds) of the requests it answered, over HTTP."""
    await settle(interval, latest)
    queries_before, evaluations_before = await query_requests(prometheus), await evaluations()
    handled_before = await handling() if handling is not None else (0.0, 0.0)
    started = time.time()
    beside = asyncio.create_task(alongside()) if alongside is not None else None
    try:
        reads = await drive(readers, seconds, read)
    finally:
        if beside is not None:
            beside.cancel()
            await asyncio.gather(beside, return_exceptions=True)
    rss = rss_mib()
    await settle(interval, latest)
    # Between the two readings of the counter, every refresh instant's evaluation has landed.
    settled = time.time()
    queries = await query_requests(prometheus) - queries_before
    evaluations_after = await evaluations()
    handled = None
    if handling is not None:
        handled_after = await handling()
        handled = (handled_after[0] - handled_before[0], handled_after[1] - handled_before[1])
    evaluated = evaluations_after[0] - evaluations_before[0]
    evaluating = evaluations_after[1] - evaluations_before[1]
    instants = refresh_instants(started, settled, interval)
    result = Phase(name, reads, queries, instants, evaluated, evaluating, rss, handled)
    print_phase(result)
    return result


def print_phase(result: Phase) -> None:
    reads = result.reads
    failed = f", {reads.failures} failed" if reads.failures else ""
    line(
        f"{result.name}: p50 / p99 per read",
        f"{ms(reads.percentile(50))} / {ms(reads.percentile(99)).strip()}  "
        f"({reads.per_second:,.0f} reads/s, {len(reads.latencies):,} reads{failed})",
    )
    if result.handled is not None and result.handled[0]:
        count, seconds = result.handled
        line(
            f"{result.name}: inside the app (nufi_http_request_duration_seconds)",
            f"{ms(seconds / count)} mean per request ({count:,.0f} requests)",
        )
    per_interval = result.queries / result.instants if result.instants else math.nan
    taking = f" of {result.evaluation_seconds / result.evaluations:.1f} s each" if result.evaluations else ""
    line(
        f"{result.name}: Prometheus queries per refresh interval",
        f"{per_interval:8.1f}     ({result.queries:.0f} queries, {result.instants} intervals, "
        f"{result.evaluations:.0f} evaluations{taking})",
    )
