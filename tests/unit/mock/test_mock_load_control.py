"""The exporter's /control/load endpoint and the load it puts on devices, in process (no sockets)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.applications import Starlette

from nufi_mock.exporter import ExporterConfig, ExporterEngine, make_profile
from nufi_mock.exporter.control import control_routes
from nufi_mock.exporter.load import Load, LoadBook
from nufi_mock.exporter.load_control import load_routes


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def engine_for(clock: Clock, nodes: tuple[str, ...] = ("n1",)) -> ExporterEngine:
    config = ExporterConfig(profile="lpu", nodes=nodes, devices_per_node=4)
    return ExporterEngine(config, make_profile("lpu"), clock=clock)


@pytest.fixture
def engine(clock: Clock) -> ExporterEngine:
    return engine_for(clock)


@pytest.fixture
async def client(engine: ExporterEngine) -> AsyncIterator[httpx.AsyncClient]:
    app = Starlette(routes=[*control_routes(engine), *load_routes(engine)])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock") as http:
        yield http


def utilization(engine: ExporterEngine) -> dict[int, float]:
    return {r.device.index: r.utilization for r in engine.readings()}


def run(engine: ExporterEngine, clock: Clock, seconds: float, dt: float = 0.5) -> None:
    for _ in range(round(seconds / dt)):
        clock.now += dt
        engine.step(dt)


REPORT = {"source": "default/infer-0", "devices": ["lpu1", "3"], "utilization": 80, "ttl_seconds": 5}


async def test_load_raises_utilization_and_temperature_of_the_named_devices_only(
    client: httpx.AsyncClient, engine: ExporterEngine, clock: Clock
) -> None:
    response = await client.post("/control/load", json=REPORT)
    assert response.status_code == 201
    assert response.json() == {
        "source": "default/infer-0",
        "node": "n1",
        "devices": ["lpu1", "lpu3"],
        "utilization": 80.0,
        "expires_in_seconds": 5.0,
    }
    before = {r.device.index: r.temperature for r in engine.readings()}
    for _ in range(20):
        # The source keeps reporting, as the inference server does every interval.
        assert (await client.post("/control/load", json=REPORT)).status_code == 200
        run(engine, clock, 1.0)
    util = utilization(engine)
    assert 70 <= util[1] <= 90 and 70 <= util[3] <= 90, util
    assert util[0] <= 2 and util[2] <= 2, util
    after = {r.device.index: r.temperature for r in engine.readings()}
    assert after[1] > before[1] + 10 and after[3] > before[3] + 10
    assert abs(after[0] - before[0]) < 2


async def test_a_source_that_stops_reporting_expires_and_its_devices_cool_off(
    client: httpx.AsyncClient, engine: ExporterEngine, clock: Clock
) -> None:
    await client.post("/control/load", json=REPORT)
    run(engine, clock, 4.0)
    assert utilization(engine)[1] > 50
    run(engine, clock, 10.0)
    assert (await client.get("/control/load")).json() == {"loads": []}
    assert utilization(engine)[1] <= 2


async def test_loads_of_two_sources_add_up_to_at_most_full(
    client: httpx.AsyncClient, engine: ExporterEngine
) -> None:
    for source in ("a", "b"):
        body = {**REPORT, "source": source, "utilization": 70, "devices": ["lpu1"]}
        await client.post("/control/load", json=body)
    assert engine.loads.levels(engine.clock()) == {"n1": {1: 100.0}}


async def test_an_override_wins_over_load(
    client: httpx.AsyncClient, engine: ExporterEngine, clock: Clock
) -> None:
    await client.post("/control/load", json=REPORT)
    override = {"node": "n1", "device": "lpu1", "metric": "utilization", "value": 12}
    assert (await client.post("/control/override", json=override)).status_code == 201
    run(engine, clock, 4.0)
    util = utilization(engine)
    assert util[1] == 12.0
    assert util[3] > 50


async def test_delete_withdraws_one_source_or_all(client: httpx.AsyncClient, engine: ExporterEngine) -> None:
    await client.post("/control/load", json=REPORT)
    await client.post("/control/load", json={**REPORT, "source": "other"})
    removed = (await client.request("DELETE", "/control/load", json={"source": "other"})).json()["removed"]
    assert [item["source"] for item in removed] == ["other"]
    assert [i["source"] for i in (await client.get("/control/load")).json()["loads"]] == ["default/infer-0"]
    assert len((await client.delete("/control/load")).json()["removed"]) == 1
    assert engine.loads.levels(engine.clock()) == {}


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({**REPORT, "devices": ["lpu9"]}, 404, "devices.0"),
        ({**REPORT, "devices": []}, 422, "devices"),
        ({**REPORT, "utilization": 101}, 422, "utilization"),
        ({**REPORT, "ttl_seconds": 0}, 422, "ttl_seconds"),
        ({**REPORT, "node": "n9"}, 404, "node"),
        ({**REPORT, "colour": "red"}, 422, "colour"),
    ],
)
async def test_a_bad_report_is_a_problem_naming_the_field(
    client: httpx.AsyncClient, body: dict[str, object], status: int, field: str
) -> None:
    response = await client.post("/control/load", json=body)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["field"] == field


async def test_an_exporter_of_several_nodes_needs_the_node(clock: Clock) -> None:
    engine = engine_for(clock, ("n1", "n2"))
    app = Starlette(routes=load_routes(engine))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock") as http:
        missing = await http.post("/control/load", json=REPORT)
        assert missing.status_code == 422 and missing.json()["field"] == "node"
        assert (await http.post("/control/load", json={**REPORT, "node": "n2"})).status_code == 201
    assert engine.loads.levels(clock()) == {"n2": {1: 80.0, 3: 80.0}}


async def test_an_empty_or_malformed_body_says_what_to_send(client: httpx.AsyncClient) -> None:
    empty = await client.post("/control/load", content=b"")
    assert empty.status_code == 400 and '"source"' in empty.json()["detail"]
    assert (await client.post("/control/load", content=b"{nope")).status_code == 400


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]),
            st.frozensets(st.integers(0, 3), min_size=1),
            st.floats(0, 100),
            st.floats(0.1, 10),
        ),
        max_size=8,
    ),
    st.floats(0, 12),
)
def test_levels_are_the_capped_sum_of_the_live_reports(
    reports: list[tuple[str, frozenset[int], float, float]], later: float
) -> None:
    book = LoadBook()
    latest: dict[str, Load] = {}
    for source, devices, level, ttl in reports:
        item = Load(source, "n1", devices, level, ttl)
        book.report(item)
        latest[source] = item
    levels = book.levels(later).get("n1", {})
    live = [item for item in latest.values() if item.expires_at > later]
    for device in range(4):
        expected = min(100.0, sum(i.utilization for i in live if device in i.devices))
        if any(device in i.devices for i in live):
            assert levels[device] == pytest.approx(expected)
        else:
            assert device not in levels
