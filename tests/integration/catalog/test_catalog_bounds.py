"""The bounds on what an expression may cost, through the API against the real Prometheus: oversized
expressions, ranges that would kill Prometheus, too many series; a revision that is not a revision; a
range step beyond reason; and a save while Prometheus is down.

NuFi reaches the real Prometheus through a recording loopback proxy, so a test can see what was sent
(the `timeout` parameter, the series counts). The proxy never forwards a query with a month-long
range: were the refusal ever broken, the test fails instead of taking the shared Prometheus down.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from support.loopback import closed_port, serve_in_thread
from support.lpu_type import LPU_LABELS, LPU_METRICS, lpu_type
from support.nufi_app import bearer
from support.world import World, serve

KILLER = "max_over_time(lpu_utilization_percent[30d:1ms])"
PLUS_ZERO_16K = "lpu_utilization_percent" + "+0" * 8000
UP_256K = "up" + "+up" * 85_000


@dataclass
class RecordingProxy:
    """Forwards Prometheus' query API to the real Prometheus, keeping each query's parameters."""

    target: str
    seen: list[dict[str, str]] = field(default_factory=list)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/api/v1/query", self.forward, methods=["GET", "POST"]),
                Route("/api/v1/query_range", self.forward, methods=["GET", "POST"]),
                Route("/-/ready", self.forward),
            ]
        )

    async def forward(self, request: Request) -> Response:
        params = dict(request.query_params)
        if request.method == "POST":
            params.update(parse_qsl((await request.body()).decode()))
        if "query" in params:
            self.seen.append(params)
            if "[30d" in params["query"]:
                return JSONResponse(
                    {"status": "error", "errorType": "bad_data", "error": "not forwarded by the test"},
                    status_code=400,
                )
        async with httpx.AsyncClient(base_url=self.target, timeout=30) as client:
            answer = (
                await client.post(request.url.path, data=params)
                if params
                else await client.get(request.url.path)
            )
        return Response(answer.content, status_code=answer.status_code, media_type="application/json")


@pytest.fixture(scope="module")
def proxy(world: World) -> Iterator[tuple[RecordingProxy, str]]:
    recorder = RecordingProxy(world.prometheus.url)
    with serve_in_thread(recorder.app(), name="prometheus-proxy") as url:
        yield recorder, url


@pytest.fixture
def recorded(proxy: tuple[RecordingProxy, str]) -> RecordingProxy:
    recorder, _ = proxy
    recorder.seen.clear()
    return recorder


@pytest.fixture
async def nufi(
    world: World, sqlite_url: str, proxy: tuple[RecordingProxy, str]
) -> AsyncIterator[httpx.AsyncClient]:
    settings = world.settings(sqlite_url).model_copy(update={"prometheus_url": proxy[1]})
    async with serve(settings) as client:
        yield client


async def check(nufi: httpx.AsyncClient, world: World, **metrics: Any) -> httpx.Response:
    return await nufi.post(
        "/api/v1/admin/devices/check-metrics",
        json={"labels": LPU_LABELS, "metrics": {**LPU_METRICS, **metrics}},
        headers=bearer(world.admin_token),
    )


async def save(nufi: httpx.AsyncClient, world: World, **metrics: Any) -> httpx.Response:
    body = lpu_type(metrics={**LPU_METRICS, **metrics})
    return await nufi.post("/api/v1/admin/devices", json=body, headers=bearer(world.admin_token))


async def prometheus_is_up(world: World) -> None:
    async with httpx.AsyncClient(base_url=world.prometheus.url, timeout=5) as client:
        assert (await client.get("/-/ready")).status_code == 200
    assert await world.prometheus.query("up") != []


@pytest.mark.parametrize(
    ("expression", "bound"), [(PLUS_ZERO_16K, "limit of 4096 characters"), (UP_256K, "4096")]
)
async def test_oversized_expressions_are_refused_before_prometheus_and_the_server_answers_on(
    nufi: httpx.AsyncClient, world: World, recorded: RecordingProxy, expression: str, bound: str
) -> None:
    for send in (check, save):
        response = await send(nufi, world, utilization=expression)
        assert response.status_code == 422, response.text[:500]
        problem = response.json()
        assert problem["field"] == "metrics.utilization"
        assert bound in problem["detail"]
        assert len(response.content) < 20_000  # the problem quotes the input, never all of it
    deep = "lpu_utilization_percent" + "+0" * 1000
    response = await check(nufi, world, utilization=deep)
    assert response.status_code == 422 and "limit of 64 levels" in response.json()["detail"]
    assert recorded.seen == []
    # The server still answers, and an ordinary check still works.
    assert (await nufi.get("/api/v1/devices", headers=bearer(world.user_token))).status_code == 200
    fine = await check(nufi, world)
    assert fine.status_code == 200 and fine.json()["ok"], fine.text


async def test_the_prometheus_killing_subquery_is_refused_before_prometheus_sees_it(
    nufi: httpx.AsyncClient, world: World, recorded: RecordingProxy
) -> None:
    for send in (check, save):
        response = await send(nufi, world, utilization=KILLER)
        assert response.status_code == 422, response.text
        problem = response.json()
        assert problem["field"] == "metrics.utilization"
        assert "30d" in problem["detail"] and "NUFI_PROMQL_MAX_RANGE_SECONDS" in problem["detail"]
    forced = await nufi.post(
        "/api/v1/admin/devices",
        params={"force": "true"},
        json=lpu_type(metrics={**LPU_METRICS, "utilization": KILLER}),
        headers=bearer(world.admin_token),
    )
    assert forced.status_code == 422
    assert [q["query"] for q in recorded.seen if "30d" in q["query"]] == []
    await prometheus_is_up(world)


async def test_every_admin_expression_is_counted_first_and_every_query_carries_a_timeout(
    nufi: httpx.AsyncClient, world: World, recorded: RecordingProxy
) -> None:
    response = await check(nufi, world)
    assert response.status_code == 200 and response.json()["ok"], response.text
    counts = [q for q in recorded.seen if q["query"].startswith("count((")]
    assert {q["query"] for q in counts} == {
        "count((lpu_utilization_percent))",
        "count((lpu_memory_used_bytes))",
        "count((lpu_memory_total_bytes))",
        "count((lpu_temperature_celsius))",
    }
    assert {q["timeout"] for q in counts} == {"2000ms"}
    assert recorded.seen and all(q.get("timeout") == "9000ms" for q in recorded.seen if q not in counts)
    # Monitoring's own queries carry it too.
    recorded.seen.clear()
    created = await save(nufi, world)
    assert created.status_code == 201, created.text
    snapshot = await nufi.get("/api/v1/monitoring/lpu", headers=bearer(world.user_token))
    assert snapshot.status_code == 200
    ranged = await nufi.get(
        "/api/v1/monitoring/lpu/range", params={"metric": "utilization"}, headers=bearer(world.user_token)
    )
    assert ranged.status_code == 200
    assert len(recorded.seen) > 8 and all("timeout" in q for q in recorded.seen)


async def test_too_many_series_are_refused_naming_the_limit(
    world: World, sqlite_url: str, proxy: tuple[RecordingProxy, str]
) -> None:
    settings = world.settings(sqlite_url).model_copy(
        update={"prometheus_url": proxy[1], "promql_max_series": 4}
    )
    async with serve(settings) as nufi:
        refused = await check(nufi, world)
        per_node = await nufi.post(
            "/api/v1/admin/devices/check-metrics",
            json={
                "labels": LPU_LABELS,
                "metrics": {"utilization": "max by (node) (lpu_utilization_percent)"},
            },
            headers=bearer(world.admin_token),
        )
        forced = await nufi.post(
            "/api/v1/admin/devices",
            params={"force": "true"},
            json=lpu_type(),
            headers=bearer(world.admin_token),
        )
    assert refused.status_code == 422
    problem = refused.json()
    assert problem["field"] == "metrics.utilization"
    assert "8 series" in problem["detail"] and "NUFI_PROMQL_MAX_SERIES" in problem["detail"]
    assert problem["max_series"] == 4
    # Two series (one per node) are within the limit: the check runs, and finds the device label missing.
    assert per_node.status_code == 200, per_node.text
    assert per_node.json()["results"]["utilization"]["missing_labels"] == ["device"]
    assert forced.status_code == 422 and forced.json()["field"] == "metrics.utilization"


async def test_saving_while_prometheus_is_down_is_a_503_unless_forced(world: World, sqlite_url: str) -> None:
    settings = world.settings(sqlite_url).model_copy(
        update={"prometheus_url": f"http://127.0.0.1:{closed_port()}"}
    )
    admin = bearer(world.admin_token)
    async with serve(settings) as nufi:
        refused = await nufi.post("/api/v1/admin/devices", json=lpu_type(), headers=admin)
        assert refused.status_code == 503, refused.text
        problem = refused.json()
        assert (problem["type"], problem["dependency"]) == ("prometheus-unavailable", "prometheus")
        assert "Prometheus" in problem["detail"] and "force" not in problem["detail"]
        assert (await nufi.get("/api/v1/devices/lpu", headers=admin)).status_code == 404

        forced = await nufi.post(
            "/api/v1/admin/devices", params={"force": "true"}, json=lpu_type(), headers=admin
        )
        assert forced.status_code == 201, forced.text
        audit = await nufi.get("/api/v1/admin/audit", params={"target_id": "lpu"}, headers=admin)
    details = audit.json()["items"][0]["details"]
    assert details["force"] is True
    assert any(b.startswith("metrics not checked") and "Prometheus" in b for b in details["bypassed"])


@pytest.mark.parametrize("revision", ["1", 1.0, True, 2**31, 2**63])
async def test_a_revision_must_be_a_bounded_integer(
    nufi: httpx.AsyncClient, world: World, revision: object
) -> None:
    admin = bearer(world.admin_token)
    assert (await save(nufi, world)).status_code == 201
    edit = lpu_type(name="LPU v2", revision=revision)
    del edit["id"]
    response = await nufi.put("/api/v1/admin/devices/lpu", json=edit, headers=admin)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "revision"


async def test_a_range_step_beyond_reason_is_a_422_naming_step(nufi: httpx.AsyncClient, world: World) -> None:
    response = await nufi.get(
        "/api/v1/monitoring/nvidia-gpu/range",
        params={"metric": "utilization", "step": "99999999999999999999d"},
        headers=bearer(world.user_token),
    )
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "step"
