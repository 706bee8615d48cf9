"""A device that reports NaN: Prometheus answers the NaN, VictoriaMetrics drops it (serving the previous
value for its lookback, then nothing). NuFi counts NaN as not heard, so both engines give one answer: a
temperature that turns NaN shows its last real value until it is stale, and one that was never a number
is simply absent, while the device's other quantities stay fresh."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from prometheus_client import CollectorRegistry, Gauge

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import ScrapeJob
from support.exporter import serving_registry
from support.polling import until
from support.prometheus_jobs import retire_jobs

from .monitoring_app import World, bearer

JOB = "monitoring-nan"
NODE = "mon-nan-1"
NAN = float("nan")

_REGISTRY = CollectorRegistry()
UTILIZATION = Gauge("nan_probe_utilization", "Utilization.", ["node", "device"], registry=_REGISTRY)
TEMPERATURE = Gauge("nan_probe_celsius", "Temperature.", ["node", "device"], registry=_REGISTRY)
NAN_TYPE: dict[str, Any] = {
    "id": "nan-acc",
    "name": "NaN accelerator",
    "vendor": "Acme",
    "resource_key": "example.com/nan",
    "labels": {"node": "node", "device": "device"},
    "metrics": {
        "utilization": f'nan_probe_utilization{{job="{JOB}"}}',
        "temperature": f'nan_probe_celsius{{job="{JOB}"}}',
    },
}


@pytest.fixture(scope="module")
async def reporting(
    scraped: World, nufi: httpx.AsyncClient, idp: IdentityProviderProcess
) -> AsyncIterator[None]:
    """d0 at 60 °C, d1 with a NaN temperature from the start; both 30 % busy."""
    for device in ("d0", "d1"):
        UTILIZATION.labels(node=NODE, device=device).set(30.0)
    TEMPERATURE.labels(node=NODE, device="d0").set(60.0)
    TEMPERATURE.labels(node=NODE, device="d1").set(NAN)
    engine = scraped.prometheus
    admin = bearer(idp, "admin")
    with serving_registry(_REGISTRY, name="monitoring-nan-exporter") as address:
        engine.set_jobs([*engine.jobs, ScrapeJob(JOB, [address])])
        created = await nufi.post(
            "/api/v1/admin/devices", json=NAN_TYPE, params={"force": "true"}, headers=admin
        )
        assert created.status_code == 201, created.text
        try:
            await engine.wait_for_series(f'nan_probe_celsius{{job="{JOB}",device="d0"}} == 60', timeout=30)
            yield
        finally:
            await nufi.delete(f"/api/v1/admin/devices/{NAN_TYPE['id']}", headers=admin)
            await retire_jobs(engine, {JOB})


async def _snapshot(nufi: httpx.AsyncClient, user: dict[str, str]) -> dict[str, Any]:
    response = await nufi.get(f"/api/v1/monitoring/{NAN_TYPE['id']}", headers=user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _devices(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["device"]: d for node in body["nodes"] for d in node["devices"] if node["node"] == NODE}


async def test_a_temperature_that_turns_nan_keeps_its_last_value_until_stale_on_every_engine(
    reporting: None, nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    async def both_listed() -> dict[str, Any] | None:
        body = await _snapshot(nufi, user)
        return body if _devices(body).keys() == {"d0", "d1"} else None

    body = await until(both_listed, within=20, what="both devices listed")
    devices = _devices(body)
    # Never a number: no temperature, nothing stale; the device is listed by its utilization.
    assert devices["d0"]["temperature_celsius"] == 60.0 and devices["d1"]["temperature_celsius"] is None
    assert devices["d1"]["utilization_percent"] == 30.0 and body["stale"] == []

    TEMPERATURE.labels(node=NODE, device="d0").set(NAN)

    async def stale() -> dict[str, Any] | None:
        body = await _snapshot(nufi, user)
        # Until then, the last real value is what is shown: never nothing, never a NaN.
        assert _devices(body)["d0"]["temperature_celsius"] in (60.0, None), body
        return body if body["stale"] else None

    body = await until(stale, within=20, what="d0's temperature stale")
    (item,) = body["stale"]
    assert (item["metric"], item["node"], item["device"]) == ("temperature", NODE, "d0")
    assert item["last_value"] == 60.0
    devices = _devices(body)
    assert devices["d0"]["temperature_celsius"] is None
    assert devices["d0"]["utilization_percent"] == 30.0 and devices["d1"]["utilization_percent"] == 30.0
    # A real value again, and the device is fresh.
    TEMPERATURE.labels(node=NODE, device="d0").set(61.0)

    async def fresh() -> bool:
        body = await _snapshot(nufi, user)
        return not body["stale"] and _devices(body)["d0"]["temperature_celsius"] == 61.0

    await until(fresh, within=20, what="d0 fresh at 61 °C")
