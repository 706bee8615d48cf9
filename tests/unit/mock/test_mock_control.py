"""The exporter's /control/override and /control/absent endpoints, in process (no sockets)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.applications import Starlette

from nufi_mock.exporter import ExporterConfig, ExporterEngine, Quantity, create_app, make_profile
from nufi_mock.exporter.control import control_routes
from nufi_mock.exporter.hardware import MIB


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def engine_for(profile: str, clock: Clock) -> ExporterEngine:
    config = ExporterConfig(profile=profile, nodes=("n1", "n2"), devices_per_node=4)
    return ExporterEngine(config, make_profile(profile), clock=clock)


@pytest.fixture
def engine(clock: Clock) -> ExporterEngine:
    return engine_for("lpu", clock)


async def client_for(engine: ExporterEngine) -> httpx.AsyncClient:
    app = Starlette(routes=control_routes(engine))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock")


@pytest.fixture
async def client(engine: ExporterEngine) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for(engine) as http:
        yield http


def temperatures(engine: ExporterEngine) -> dict[tuple[str, int], float]:
    return {(r.device.node, r.device.index): r.temperature for r in engine.readings()}


async def test_node_wide_override_heats_every_device_of_that_node_only(
    client: httpx.AsyncClient, engine: ExporterEngine
) -> None:
    response = await client.post(
        "/control/override",
        json={"node": "n1", "device": None, "metric": "temperature", "value": 95, "duration_seconds": None},
    )
    assert response.status_code == 201
    assert response.json() == {
        "node": "n1",
        "device": None,
        "metric": "temperature",
        "value": 95.0,
        "unit": "celsius",
        "expires_in_seconds": None,
    }
    temps = temperatures(engine)
    assert [temps[("n1", i)] for i in range(4)] == [95.0] * 4
    assert all(temps[("n2", i)] < 40 for i in range(4))


async def test_override_expires_after_its_duration(
    client: httpx.AsyncClient, engine: ExporterEngine, clock: Clock
) -> None:
    response = await client.post(
        "/control/override",
        json={
            "node": "n2",
            "device": "lpu3",
            "metric": "lpu_temperature_celsius",
            "value": 90,
            "duration_seconds": 30,
        },
    )
    assert response.status_code == 201 and response.json()["expires_in_seconds"] == 30.0
    assert temperatures(engine)[("n2", 3)] == 90.0
    clock.now += 30.0
    assert temperatures(engine)[("n2", 3)] < 40.0
    assert (await client.get("/control/override")).json() == {"overrides": []}


async def test_delete_without_body_removes_all_and_with_keys_only_those(
    client: httpx.AsyncClient, engine: ExporterEngine
) -> None:
    for body in (
        {"node": "n1", "metric": "temperature", "value": 95},
        {"node": "n1", "device": 2, "metric": "temperature", "value": 60},
        {"node": "n2", "metric": "utilization", "value": 100},
    ):
        assert (await client.post("/control/override", json=body)).status_code == 201
    removed = await client.request("DELETE", "/control/override", json={"node": "n1", "device": None})
    assert [(o["node"], o["device"]) for o in removed.json()["removed"]] == [("n1", None)]
    assert temperatures(engine)[("n1", 2)] == 60.0 and temperatures(engine)[("n1", 0)] < 40
    everything = await client.delete("/control/override")
    assert len(everything.json()["removed"]) == 2
    assert (await client.get("/control/override")).json() == {"overrides": []}


async def test_posting_the_same_keys_replaces(client: httpx.AsyncClient) -> None:
    body = {"node": "n1", "metric": "temperature", "value": 90}
    assert (await client.post("/control/override", json=body)).status_code == 201
    again = await client.post("/control/override", json=body | {"value": 91})
    assert again.status_code == 200
    assert [o["value"] for o in (await client.get("/control/override")).json()["overrides"]] == [91.0]


async def test_vendor_metric_names_take_values_in_their_own_unit(clock: Clock) -> None:
    engine = engine_for("dcgm", clock)
    async with await client_for(engine) as client:
        response = await client.post(
            "/control/override",
            json={"node": "n1", "device": "nvidia1", "metric": "DCGM_FI_DEV_FB_USED", "value": 1024},
        )
    assert response.status_code == 201
    assert response.json()["metric"] == "memory_used" and response.json()["value"] == 1024 * MIB
    assert engine.overrides.value_for("n1", 1, Quantity.MEMORY_USED, clock.now) == 1024 * MIB


@pytest.mark.parametrize(
    ("body", "status", "field", "detail"),
    [
        ({"node": "n9", "metric": "temperature", "value": 95}, 404, "node", "n9"),
        ({"node": "n1", "device": "lpu7", "metric": "temperature", "value": 95}, 404, "device", "lpu7"),
        ({"node": "n1", "metric": "fan_speed", "value": 95}, 422, "metric", "fan_speed"),
        ({"node": "n1", "metric": "utilization", "value": 150}, 422, "value", "between 0 and 100"),
        (
            {"node": "n1", "metric": "temperature", "value": 95, "duration_seconds": 0},
            422,
            "duration_seconds",
            "",
        ),
        ({"node": "n1", "metric": "temperature", "value": 95, "colour": "red"}, 422, "colour", ""),
        ({"node": "n1", "metric": "temperature"}, 422, "value", ""),
    ],
)
async def test_bad_requests_get_problem_details(
    client: httpx.AsyncClient, body: dict[str, object], status: int, field: str, detail: str
) -> None:
    response = await client.post("/control/override", json=body)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status and problem["field"] == field and detail in problem["detail"]


async def test_malformed_json_is_a_bad_request(client: httpx.AsyncClient) -> None:
    response = await client.post("/control/override", content=b"{not json")
    assert response.status_code == 400 and "not JSON" in response.json()["detail"]
    empty = await client.post("/control/override")
    assert empty.status_code == 400


# --- /control/absent ---------------------------------------------------------------------------------


async def reporting(http: httpx.AsyncClient) -> dict[str, list[str]]:
    """Devices with a temperature series on /metrics, by node: what a scrape would see."""
    text = (await http.get("/metrics")).text
    found: dict[str, list[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "lpu_temperature_celsius":
                found.setdefault(sample.labels["node"], []).append(sample.labels["device"])
    return found


@pytest.fixture
async def exporter(engine: ExporterEngine) -> AsyncIterator[httpx.AsyncClient]:
    """The whole exporter app (its /metrics too), its lifespan not run: nothing needs ticking."""
    transport = httpx.ASGITransport(app=create_app(engine))
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as http:
        yield http


async def test_an_absent_device_vanishes_from_metrics_until_deleted(exporter: httpx.AsyncClient) -> None:
    everyone = ["lpu0", "lpu1", "lpu2", "lpu3"]
    gone = await exporter.post("/control/absent", json={"node": "n1", "device": 3})
    assert gone.status_code == 201, gone.text
    assert gone.json() == {"node": "n1", "device": "lpu3", "expires_in_seconds": None}
    assert await reporting(exporter) == {"n1": ["lpu0", "lpu1", "lpu2"], "n2": everyone}
    assert (await exporter.post("/control/absent", json={"node": "n1", "device": "lpu3"})).status_code == 200
    listed = (await exporter.get("/control/absent")).json()
    assert listed == {"absent": [{"node": "n1", "device": "lpu3", "expires_in_seconds": None}]}

    back = await exporter.request("DELETE", "/control/absent", json={"node": "n1", "device": "3"})
    assert [item["device"] for item in back.json()["removed"]] == ["lpu3"]
    assert await reporting(exporter) == {"n1": everyone, "n2": everyone}


async def test_a_silent_node_reports_again_when_its_time_runs_out(
    exporter: httpx.AsyncClient, clock: Clock
) -> None:
    response = await exporter.post("/control/absent", json={"node": "n2", "duration_seconds": 30})
    assert response.status_code == 201, response.text
    assert response.json() == {"node": "n2", "device": None, "expires_in_seconds": 30.0}
    assert set(await reporting(exporter)) == {"n1"}
    clock.now += 30
    assert set(await reporting(exporter)) == {"n1", "n2"}
    assert (await exporter.get("/control/absent")).json() == {"absent": []}


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"node": "n9"}, 404, "node"),
        ({"node": "n1", "device": "lpu7"}, 404, "device"),
        ({"node": "n1", "duration_seconds": 0}, 422, "duration_seconds"),
        ({"node": "n1", "seconds": 5}, 422, "seconds"),
    ],
)
async def test_an_absence_of_nothing_known_is_refused_naming_the_field(
    exporter: httpx.AsyncClient, engine: ExporterEngine, body: dict[str, object], status: int, field: str
) -> None:
    response = await exporter.post("/control/absent", json=body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["field"] == field
    assert engine.absences.active(engine.clock()) == []
