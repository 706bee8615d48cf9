"""A device's health series forced through /control/override, as a scrape of /metrics sees it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from nufi_mock.exporter import ExporterConfig, ExporterEngine, create_app, make_profile
from nufi_mock.exporter.profiles import Naming

ALL_HEALTHY = {(node, f"lpu{i}"): 1.0 for node in ("n1", "n2") for i in range(4)}


def engine_for(profile: str, naming: Naming = Naming.CURRENT) -> ExporterEngine:
    config = ExporterConfig(profile=profile, nodes=("n1", "n2"), devices_per_node=4)
    return ExporterEngine(config, make_profile(profile, naming), clock=lambda: 100.0)


async def exporter_for(engine: ExporterEngine) -> httpx.AsyncClient:
    """The whole exporter app, its lifespan not run: overrides act without a tick."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(engine)), base_url="http://mock")


@pytest.fixture
async def exporter() -> AsyncIterator[httpx.AsyncClient]:
    async with await exporter_for(engine_for("lpu")) as http:
        yield http


async def scraped(http: httpx.AsyncClient, metric: str) -> dict[tuple[str, str], float]:
    """``metric``'s value per (node, device label) on /metrics."""
    text = (await http.get("/metrics")).text
    return {
        (s.labels.get("node") or s.labels["hostname"], s.labels.get("device") or s.labels["name"]): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == metric
    }


async def force(http: httpx.AsyncClient, body: dict[str, object], status: int = 201) -> httpx.Response:
    response = await http.post("/control/override", json=body)
    assert response.status_code == status, response.text
    return response


async def test_every_device_is_healthy_until_told_otherwise(exporter: httpx.AsyncClient) -> None:
    assert await scraped(exporter, "lpu_health") == ALL_HEALTHY


async def test_one_device_then_a_whole_node_unhealthy_and_back_after_delete(
    exporter: httpx.AsyncClient,
) -> None:
    device = await force(exporter, {"node": "n1", "device": "lpu2", "metric": "health", "value": 0})
    assert device.json() == {
        "node": "n1",
        "device": "lpu2",
        "metric": "health",
        "value": 0.0,
        "unit": "1 healthy, 0 unhealthy",
        "expires_in_seconds": None,
    }
    assert await scraped(exporter, "lpu_health") == ALL_HEALTHY | {("n1", "lpu2"): 0.0}

    await force(exporter, {"node": "n2", "device": None, "metric": "lpu_health", "value": 0})
    node_down = {(node, device): 0.0 for node, device in ALL_HEALTHY if node == "n2"}
    assert await scraped(exporter, "lpu_health") == ALL_HEALTHY | {("n1", "lpu2"): 0.0} | node_down

    removed = await exporter.request("DELETE", "/control/override", json={"node": "n2", "metric": "health"})
    assert [(o["node"], o["device"]) for o in removed.json()["removed"]] == [("n2", None)]
    assert await scraped(exporter, "lpu_health") == ALL_HEALTHY | {("n1", "lpu2"): 0.0}
    await exporter.request("DELETE", "/control/override", json={"node": "n1", "device": "lpu2"})
    assert await scraped(exporter, "lpu_health") == ALL_HEALTHY


async def test_a_device_healthy_on_a_node_forced_unhealthy_stays_healthy(exporter: httpx.AsyncClient) -> None:
    await force(exporter, {"node": "n1", "metric": "health", "value": 0})
    await force(exporter, {"node": "n1", "device": 3, "metric": "health", "value": 1})
    health = await scraped(exporter, "lpu_health")
    assert [health[("n1", f"lpu{i}")] for i in range(4)] == [0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize(("metric", "value"), [("health", 0.5), ("health", 2), ("lpu_health", -1)])
async def test_health_takes_only_zero_or_one(exporter: httpx.AsyncClient, metric: str, value: float) -> None:
    response = await force(exporter, {"node": "n1", "metric": metric, "value": value}, status=422)
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["field"] == "value" and f"{metric} must be 0 or 1, got {value:g}" in problem["detail"]
    assert (await exporter.get("/control/override")).json() == {"overrides": []}


async def test_rbln_health_takes_the_same_override_in_its_own_polarity() -> None:
    async with await exporter_for(engine_for("rbln", Naming.BOTH)) as http:
        await force(http, {"node": "n1", "device": "rbln1", "metric": "health", "value": 0})
        # Its own name speaks its own polarity: 1 is inactive, stored as health 0.
        named = await force(
            http, {"node": "n2", "device": 0, "metric": "RBLN_DEVICE_STATUS:HEALTH", "value": 1}
        )
        assert named.json()["metric"] == "health" and named.json()["value"] == 0.0
        for metric in ("rbln_npu_health", "RBLN_DEVICE_STATUS:HEALTH"):
            inactive = {device for device, value in (await scraped(http, metric)).items() if value == 1}
            assert inactive == {("n1", "rbln1"), ("n2", "rbln0")}


async def test_furiosa_alive_follows_health() -> None:
    async with await exporter_for(engine_for("furiosa")) as http:
        await force(http, {"node": "n2", "metric": "health", "value": 0})
        alive = await scraped(http, "furiosa_npu_alive")
    assert {node for (node, _), value in alive.items() if value == 0} == {"n2"}
    assert {node for (node, _), value in alive.items() if value == 1} == {"n1"}
