"""What the run reads of NuFi and Prometheus besides the requests: NuFi's RSS, Prometheus' query
counters, the types NuFi refreshes, CPU time."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import httpx

from bench.load.counters import refreshing_types
from bench.load.plan import now, pause_until
from bench.load.tally import Tally
from bench.load.world import CpuReading, vm_rss_mib

RSS_SAMPLE_SECONDS = 2.0


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
