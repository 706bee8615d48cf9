"""Prometheus range queries per chart view: one viewer, then many opening the same chart at once."""

from __future__ import annotations

import asyncio
import time

import httpx

from bench.common.printing import line

# What the dashboard's chart asks for (nufi.ui.parts.charts): per node, the busiest 20, 300 points.
CHART = {"by": "node", "points": "300", "series": "20", "top": "latest"}
HOUR = 3600


async def range_queries(prometheus_url: str) -> float:
    """Range queries Prometheus has answered so far, from its own counter."""
    async with httpx.AsyncClient(timeout=10) as client:
        text = (await client.get(f"{prometheus_url}/metrics")).text
    return sum(
        float(row.rpartition(" ")[2])
        for row in text.splitlines()
        if row.startswith("prometheus_http_requests_total{") and 'handler="/api/v1/query_range"' in row
    )


async def chart_views(
    nufi_url: str, type_id: str, token: str, prometheus_url: str, metric: str, viewers: int
) -> None:
    """`viewers` readers opening the chart of `metric` at once; prints the range queries it took."""
    headers = {"Authorization": f"Bearer {token}"}
    before = await range_queries(prometheus_url)
    async with httpx.AsyncClient(base_url=nufi_url, headers=headers, timeout=120) as client:

        async def view() -> int:
            # Each viewer's own "now", as each browser would send it.
            end = time.time()
            params = {**CHART, "metric": metric, "start": str(end - HOUR), "end": str(end)}
            return (await client.get(f"/api/v1/monitoring/{type_id}/range", params=params)).status_code

        statuses = await asyncio.gather(*(view() for _ in range(viewers)))
    asked = await range_queries(prometheus_url) - before
    failed = sum(1 for status in statuses if status != 200)
    line(
        f"{type_id} {metric} chart, {viewers} viewer(s) at once: range queries to Prometheus",
        f"{asked:.0f} ({asked / viewers:.2f} per view, {failed} failed)",
    )
