"""A device whose exporter goes silent: Prometheus drops its series at the next failed scrape; NuFi keeps
the last value for up to three scrape intervals, then lists every quantity as stale and shows null."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from .monitoring_app import World

INTERVAL = 1.0  # the tests' scrape interval
METRICS = {"utilization", "memory_used", "memory_total", "temperature"}


async def snapshot(nufi: httpx.AsyncClient, user: dict[str, str]) -> dict[str, Any]:
    response = await nufi.get("/api/v1/monitoring/gone-lpu", headers=user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def temperatures(body: dict[str, Any]) -> list[float | None]:
    return [d["temperature_celsius"] for node in body["nodes"] for d in node["devices"]]


async def test_a_silent_exporter_becomes_stale_after_three_scrape_intervals(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    before = await snapshot(nufi, user)
    assert before["stale"] == [] and temperatures(before) == [50.0, 50.0]

    scraped.exporters["monitoring-gone"].process.stop()
    stopped_at = time.time()

    kept_after_prometheus_dropped = False
    deadline = time.monotonic() + 15
    while True:
        plain = await scraped.prometheus.query('lpu_temperature_celsius{job="monitoring-gone"}')
        body = await snapshot(nufi, user)
        if body["stale"]:
            break
        if not plain and temperatures(body) == [50.0, 50.0]:
            kept_after_prometheus_dropped = True
        assert time.monotonic() < deadline, "the silent exporter never became stale"
        await asyncio.sleep(0.2)

    # Between Prometheus dropping the series and the staleness limit, the last value was still shown.
    assert kept_after_prometheus_dropped
    # Once stale, all four quantities of both devices are listed and their values are null, not 0.
    body = await snapshot(nufi, user)
    listed = {(s["metric"], s["node"], s["device"]) for s in body["stale"]}
    assert listed == {(m, "mon-gone-1", d) for m in METRICS for d in ("lpu0", "lpu1")}
    for item in body["stale"]:
        assert item["silent_seconds"] > 3 * INTERVAL
        assert "more than three scrape intervals (3 s)" in item["reason"]
    (node,) = body["nodes"]
    assert node["node"] == "mon-gone-1" and node["capacity"] == 2
    for device in node["devices"]:
        assert device["utilization_percent"] is None and device["temperature_celsius"] is None
        assert device["memory_used_bytes"] is None and device["memory_total_bytes"] is None
    summary = body["summary"]
    assert summary["devices"] == 2
    assert summary["avg_utilization_percent"] is None and summary["max_temperature_celsius"] is None
    overview = (await nufi.get("/api/v1/monitoring/overview", headers=user)).json()
    row = next(r for r in overview["items"] if r["device_type"] == "gone-lpu")
    assert row["stale_count"] == 8
    assert time.time() - stopped_at < 15
