"""4. The RSS soak: many HTTP readers for `--soak-seconds`, this process' VmRSS after the first
minute, minute by minute, and at the end."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable

import httpx

from bench.common.printing import line
from bench.common.proc import rss_mib
from bench.monitoring_snapshot.phases import phase
from bench.monitoring_snapshot.world import MANY_READERS, World

# The first RSS reading of the soak is taken after this long.
SOAK_FIRST_SECONDS = 60.0


async def soak(
    world: World,
    read: Callable[[], Awaitable[bool]],
    prometheus: httpx.AsyncClient,
    evaluations: Callable[[], Awaitable[tuple[float, float]]],
    latest: Callable[[], Awaitable[float]],
    handling: Callable[[], Awaitable[tuple[float, float]]],
) -> None:
    first_at = min(SOAK_FIRST_SECONDS, world.soak_seconds)
    print(
        f"\n4. RSS soak: {MANY_READERS} HTTP readers for {world.soak_seconds:g} s "
        f"(VmRSS of this process: server, refresher and readers)"
    )
    readings: list[float] = []
    # One reading a minute besides: a plateau (bounded caches filling) and a leak differ in shape.
    minutes: list[float] = []

    async def first_reading() -> None:
        await asyncio.sleep(first_at)
        readings.append(rss_mib())
        while len(minutes) + 1 < world.soak_seconds / 60:
            await asyncio.sleep(60)
            minutes.append(rss_mib())

    result = await phase(
        f"soak, {MANY_READERS} readers",
        MANY_READERS,
        world.soak_seconds,
        read,
        prometheus,
        evaluations,
        latest,
        world.refresh_seconds,
        alongside=first_reading,
        handling=handling,
    )
    last = result.rss_mib
    first = readings[0] if readings else math.nan
    line(f"RSS after the first {first_at:g} s", f"{first:8.1f} MiB")
    line(f"RSS after {result.reads.seconds:.0f} s", f"{last:8.1f} MiB")
    line("growth", f"{last - first:8.1f} MiB  ({(last - first) / first * 100:+.1f} %)")
    if minutes:
        line("RSS minute by minute after the first", " ".join(f"{value:.1f}" for value in minutes) + " MiB")
