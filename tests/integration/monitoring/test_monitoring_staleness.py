"""A device whose exporter goes silent: Prometheus drops its series at the next failed scrape; NuFi keeps
the last value for up to three scrape intervals, then lists every quantity as stale (with its last value
and when it was last seen) and shows null; when the exporter returns, the devices are fresh again. A node
that advertises devices no series reports is listed as not reporting."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

import httpx

from support.polling import until

from .monitoring_app import World
from .monitoring_world import pin

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
        # Each quantity is read by its own query: one may be listed a pass before another.
        if _listed(body) == {(m, "mon-gone-1", d) for m in METRICS for d in ("lpu0", "lpu1")}:
            break
        if not plain and temperatures(body) == [50.0, 50.0]:
            kept_after_prometheus_dropped = True
        assert time.monotonic() < deadline, "the silent exporter's quantities were never all listed stale"
        await asyncio.sleep(0.2)

    # Between Prometheus dropping the series and the staleness limit, the last value was still shown.
    assert kept_after_prometheus_dropped
    # Once stale, all four quantities of both devices are listed and their values are null, not 0.
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


async def blink(nufi: httpx.AsyncClient, user: dict[str, str]) -> dict[str, Any]:
    response = await nufi.get("/api/v1/monitoring/blink-lpu", headers=user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_stopped_exporter_is_stale_with_its_last_value_and_fresh_again_when_it_returns(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    exporter = scraped.exporters["monitoring-blink"]
    assert temperatures(await blink(nufi, user)) == [58.0, 58.0]
    exporter.process.stop()
    stopped_at = time.time()

    async def stale() -> dict[str, Any] | None:
        body = await blink(nufi, user)
        temperature = {(node, device) for metric, node, device in _listed(body) if metric == "temperature"}
        return body if len(temperature) == 2 else None

    body = await until(stale, within=15)
    assert body is not None
    temperature = [s for s in body["stale"] if s["metric"] == "temperature"]
    assert {(s["node"], s["device"]) for s in temperature} == {
        ("mon-blink-1", "lpu0"),
        ("mon-blink-1", "lpu1"),
    }
    # An engine that hides its newest seconds (VictoriaMetrics' latency offset) still shows the series
    # that long after its last scrape.
    seen_later = scraped.prometheus.hides_newest_seconds
    for item in temperature:
        # The last value the device gave, and when it was last seen: before the exporter stopped.
        assert item["last_value"] == 58.0
        last_seen = datetime.fromisoformat(item["last_seen"]).timestamp()
        assert last_seen <= stopped_at + 1.5 + seen_later
    assert temperatures(body) == [None, None]
    # The node still advertises its two devices, which are listed (stale), so it is not "not reporting".
    assert body["not_reporting"] == []

    exporter.process.restart()
    await asyncio.to_thread(exporter.process.wait_ready, lambda: _healthy(exporter.address), 20.0, "healthy")
    await asyncio.to_thread(pin, exporter)

    async def fresh() -> dict[str, Any] | None:
        body = await blink(nufi, user)
        return body if not body["stale"] and temperatures(body) == [58.0, 58.0] else None

    await until(fresh, within=20)


def _listed(body: dict[str, Any]) -> set[tuple[str, str, str]]:
    """The stale quantities of a snapshot, as (metric, node, device)."""
    return {(s["metric"], s["node"], s["device"]) for s in body["stale"]}


def _healthy(address: str) -> bool:
    return httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200


async def test_a_node_advertising_devices_that_no_series_reports_is_not_reporting(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    response = await nufi.get("/api/v1/monitoring/quiet-lpu", headers=user)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["not_reporting"] == [{"node": "mon-quiet-1", "capacity": 3}]
    (node,) = body["nodes"]
    assert node["node"] == "mon-quiet-1" and node["capacity"] == 3 and node["devices"] == []
    assert body["summary"]["devices"] == 0 and body["summary"]["avg_utilization_percent"] is None
    overview = (await nufi.get("/api/v1/monitoring/overview", headers=user)).json()
    row = next(r for r in overview["items"] if r["device_type"] == "quiet-lpu")
    assert row["not_reporting_count"] == 1
