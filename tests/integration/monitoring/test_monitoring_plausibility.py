"""Through the real Prometheus and the HTTP API: values no device can have are null in a snapshot and
named in its errors, each device shows its health, and a device reporting only its health is listed.

A fixed-series exporter serves one family, `plaus_reading`, whose `q` label says which quantity a
series is; the custom type below selects each quantity from it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import ScrapeJob
from support.polling import present, until

from .monitoring_app import World, bearer
from .monitoring_world import GiB, serving_fixed

TYPE_ID = "plausibility-acc"
NODE = "mon-plaus-1"  # advertises nothing: the node is listed because its series name it


def quantity(q: str) -> str:
    return f'plaus_reading{{q="{q}"}}'


PLAUSIBILITY_TYPE: dict[str, Any] = {
    "id": TYPE_ID,
    "name": "Accelerator with odd sensors",
    "vendor": "Acme",
    "resource_key": "example.com/plaus",
    "labels": {"node": "host", "device": "dev"},
    "metrics": {
        "utilization": quantity("utilization"),
        "memory": {"mode": "used_total", "used": quantity("used"), "total": quantity("total")},
        "temperature": quantity("temperature"),
        "health": quantity("health"),
    },
}


def series(device: str, **values: float) -> list[tuple[dict[str, str], float]]:
    return [({"host": NODE, "dev": device, "q": q}, value) for q, value in values.items()]


SERIES = [
    *series("hot", utilization=10.0, used=1 * GiB, total=16 * GiB, temperature=54000.0, health=1.0),
    *series("full", utilization=20.0, used=20 * GiB, total=16 * GiB, temperature=50.0, health=0.0),
    *series("fine", utilization=30.0, used=2 * GiB, total=16 * GiB, temperature=61.5, health=1.0),
    *series("only-health", health=0.0),
]


@pytest.fixture(scope="module")
async def odd_series(scraped: World) -> AsyncIterator[None]:
    prometheus = scraped.prometheus
    before = list(prometheus.jobs)
    with serving_fixed("plaus_reading", SERIES) as address:
        prometheus.set_jobs([*before, ScrapeJob("monitoring-plausibility", [address])])
        try:
            await prometheus.wait_for_series('plaus_reading{dev="only-health"}', timeout=30)
            yield
        finally:
            prometheus.set_jobs(before)


@pytest.fixture(scope="module")
async def registered(
    odd_series: None, nufi: httpx.AsyncClient, idp: IdentityProviderProcess
) -> AsyncIterator[httpx.AsyncClient]:
    # Registered for this module only: the other modules count the package's types.
    admin = bearer(idp, "admin")
    created = await nufi.post(
        "/api/v1/admin/devices", json=PLAUSIBILITY_TYPE, params={"force": "true"}, headers=admin
    )
    assert created.status_code == 201, created.text
    try:
        yield nufi
    finally:
        deleted = await nufi.delete(f"/api/v1/admin/devices/{TYPE_ID}", headers=admin)
        assert deleted.status_code == 204, deleted.text


async def test_implausible_values_are_null_and_named_and_health_is_shown(
    registered: httpx.AsyncClient, user: dict[str, str]
) -> None:
    async def every_device() -> dict[str, Any] | None:
        response = await registered.get(f"/api/v1/monitoring/{TYPE_ID}", headers=user)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        names = {d["device"] for node in body["nodes"] for d in node["devices"]}
        return body if names == {"hot", "full", "fine", "only-health"} else None

    snapshot = present(await until(every_device, within=30))
    (node,) = snapshot["nodes"]
    assert node["node"] == NODE
    devices = {d["device"]: d for d in node["devices"]}

    hot = devices["hot"]
    assert hot["temperature_celsius"] is None
    assert (hot["utilization_percent"], hot["memory_used_bytes"], hot["health"]) == (10.0, 1 * GiB, "ok")
    full = devices["full"]
    assert full["memory_used_bytes"] is None and full["memory_total_bytes"] is None
    assert (full["temperature_celsius"], full["health"]) == (50.0, "unhealthy")
    assert devices["fine"]["temperature_celsius"] == 61.5 and devices["fine"]["health"] == "ok"
    only = devices["only-health"]
    assert only["health"] == "unhealthy"
    readings = ("utilization_percent", "memory_used_bytes", "memory_total_bytes", "temperature_celsius")
    assert all(only[key] is None for key in (*readings, "power_watts"))

    # The flagged values never reach the summary.
    assert snapshot["summary"]["max_temperature_celsius"] == 61.5
    assert snapshot["summary"]["memory_used_bytes"] == 3 * GiB

    flagged = [e for e in snapshot["errors"] if e["source"] == "plausibility"]
    assert [(e["metric"], e["node"], e["device"]) for e in flagged] == [
        ("memory_used", NODE, "full"),
        ("temperature", NODE, "hot"),
    ]
    memory, temperature = (e["message"] for e in flagged)
    assert f"memory used {20 * GiB} bytes is more than the total {16 * GiB} bytes" in memory
    assert "temperature 54000 °C is outside -40 to 150 °C" in temperature
    assert flagged[1]["query"] == quantity("temperature")
    assert [e for e in snapshot["errors"] if e["source"] != "plausibility"] == []
