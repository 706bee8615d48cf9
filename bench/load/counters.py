"""Prometheus' and NuFi's own counters, read from their /metrics, and what an evaluation or a range
request of a type should cost in queries."""

from __future__ import annotations

import re
from collections import Counter

import httpx

from bench.load.plan import Tokens
from nufi.devices.spec import Metrics

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
