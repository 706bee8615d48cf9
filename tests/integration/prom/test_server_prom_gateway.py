"""PrometheusGateway and /readyz against a small fake Prometheus on loopback.

The fake (a Starlette app run by uvicorn in a thread on a free port) answers with Prometheus' wire
shapes, including the error envelopes that a healthy real server rarely produces on demand; the
gateway's HTTP client runs unmocked. Real-Prometheus behaviour is covered in test_server_prometheus.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from nufi.api import create_app
from nufi.config import Settings
from nufi.prom import PrometheusGateway, PrometheusQueryRejected, PrometheusUnavailable
from nufi.prom.errors import PrometheusTimedOut
from support.asgi import serving
from support.loopback import closed_port, serve_in_thread

pytestmark = pytest.mark.usefixtures("clean_env")


@dataclass
class FakePrometheus:
    ready: bool = True
    seen: list[tuple[str, dict[str, str], str | None]] = field(default_factory=list)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/-/ready", self.ready_endpoint),
                Route("/slow/-/ready", self.slow_ready),
                Route("/api/v1/query", self.query, methods=["GET", "POST"]),
                Route("/api/v1/query_range", self.query, methods=["GET", "POST"]),
                # The query API under a path prefix without /-/ready, as vmselect and Mimir serve it.
                Route("/prefixed/api/v1/query", self.query, methods=["GET", "POST"]),
            ]
        )

    async def ready_endpoint(self, request: Request) -> Response:
        if self.ready:
            return PlainTextResponse("Prometheus Server is Ready.\n")
        return PlainTextResponse(
            "Service Unavailable", status_code=503, headers={"X-Prometheus-Stopping": "false"}
        )

    async def slow_ready(self, request: Request) -> Response:
        await asyncio.sleep(1.5)  # a Prometheus too slow to answer: the gateway gives up after 0.2 s
        return PlainTextResponse("Prometheus Server is Ready.\n")

    async def query(self, request: Request) -> Response:
        params = dict(request.query_params)
        if request.method == "POST":
            params.update(parse_qsl((await request.body()).decode()))
        self.seen.append((request.method, params, request.headers.get("authorization")))
        promql = params.get("query", "")
        if promql.startswith("sum("):
            return _prom_error("bad_data", "1:5: parse error: unclosed left parenthesis", 400)
        if "too_slow" in promql:
            return _prom_error("timeout", "query timed out in expression evaluation", 503)
        if "hangs" in promql:
            await asyncio.sleep(2.5)  # longer than the gateway waits for a short count
        if promql == "html":
            return Response(
                "<html><body>502 Bad Gateway</body></html>", status_code=502, media_type="text/html"
            )
        if request.url.path.endswith("query_range"):
            data = {
                "resultType": "matrix",
                "result": [{"metric": {"device": "npu0"}, "values": [[100, "1"], [115, "NaN"]]}],
            }
            return JSONResponse({"status": "success", "data": data})
        data = {
            "resultType": "vector",
            "result": [{"metric": {"__name__": "up", "job": "lpu"}, "value": [1700000000.123, "1"]}],
        }
        body: dict[str, object] = {"status": "success", "data": data}
        if promql == "warned":
            body["warnings"] = ["results truncated due to limit"]
        return JSONResponse(body)


def _prom_error(error_type: str, error: str, status: int) -> Response:
    """Prometheus' error envelope."""
    return JSONResponse({"status": "error", "errorType": error_type, "error": error}, status_code=status)


@pytest.fixture(scope="module")
def fake_prometheus() -> Iterator[tuple[FakePrometheus, str]]:
    fake = FakePrometheus()
    with serve_in_thread(fake.app()) as url:
        yield fake, url


@pytest.fixture
def prom(fake_prometheus: tuple[FakePrometheus, str]) -> Iterator[FakePrometheus]:
    fake, _ = fake_prometheus
    fake.ready = True
    fake.seen.clear()
    yield fake


@pytest.fixture
async def gateway(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus
) -> AsyncIterator[PrometheusGateway]:
    """A gateway to the fake Prometheus, closed after the test."""
    _, url = fake_prometheus
    client = PrometheusGateway(url)
    try:
        yield client
    finally:
        await client.close()


async def test_readyz_is_ok_when_prometheus_answers_ready(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus
) -> None:
    _, url = fake_prometheus
    async with serving(create_app(Settings(prometheus_url=url))) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    status = {d["name"]: d for d in response.json()["dependencies"]}["prometheus"]
    assert (status["configured"], status["ok"]) == (True, True)
    assert status["detail"] == f"Prometheus at {url} is ready"


async def test_readyz_lists_prometheus_as_starting_and_stays_ready(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus
) -> None:
    _, url = fake_prometheus
    prom.ready = False
    async with serving(create_app(Settings(prometheus_url=url))) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200, response.text
    status = {d["name"]: d for d in response.json()["dependencies"]}["prometheus"]
    assert (status["ok"], status["required"]) == (False, False)
    assert "not ready yet (HTTP 503" in status["detail"]


async def test_an_engine_without_ready_under_its_prefix_is_ready_when_it_answers_queries(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus
) -> None:
    _, url = fake_prometheus
    async with serving(create_app(Settings(prometheus_url=f"{url}/prefixed"))) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200, response.text
    status = {d["name"]: d for d in response.json()["dependencies"]}["prometheus"]
    assert status["ok"] and "answers queries" in status["detail"] and "HTTP 404" in status["detail"]
    method, params, _ = prom.seen[-1]
    assert (method, params) == ("GET", {"query": "vector(1)"})


async def test_a_url_that_serves_neither_ready_nor_queries_is_not_ready_and_says_what_to_check(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus
) -> None:
    _, url = fake_prometheus
    gateway = PrometheusGateway(f"{url}/elsewhere")
    try:
        status = await gateway.check()
    finally:
        await gateway.close()
    assert not status.ok
    assert status.detail == (
        f"Prometheus at {url}/elsewhere answered HTTP 404 on /-/ready and HTTP 404 on api/v1/query; "
        "check that NUFI_PROMETHEUS_URL is the URL under which the engine serves api/v1/query"
    )


async def test_prometheus_check_times_out_with_a_clear_detail(
    fake_prometheus: tuple[FakePrometheus, str],
) -> None:
    _, url = fake_prometheus
    gateway = PrometheusGateway(f"{url}/slow", timeout_seconds=0.2)
    try:
        status = await gateway.check()
    finally:
        await gateway.close()
    assert not status.ok
    assert status.detail == f"Prometheus at {url}/slow did not answer within 0.2 s"


async def test_query_decodes_a_vector(gateway: PrometheusGateway, prom: FakePrometheus) -> None:
    result = await gateway.query("up", time=1700000000.5)
    (sample,) = result.samples
    assert sample.metric == {"__name__": "up", "job": "lpu"}
    assert sample.value == 1.0
    assert sample.timestamp == 1700000000.123
    method, params, _ = prom.seen[-1]
    assert (method, params) == ("GET", {"query": "up", "time": "1700000000.5", "timeout": "9000ms"})


async def test_long_queries_are_sent_as_a_form(gateway: PrometheusGateway, prom: FakePrometheus) -> None:
    promql = "up" + " or up" * 500
    await gateway.query(promql)
    method, params, _ = prom.seen[-1]
    assert method == "POST"
    assert params["query"] == promql


async def test_query_range_decodes_a_matrix(gateway: PrometheusGateway, prom: FakePrometheus) -> None:
    result = await gateway.query_range("npu_util", start=100, end=115, step_seconds=15)
    (series,) = result.series
    assert series.points[0] == (100.0, 1.0)
    assert series.points[1][1] != series.points[1][1]  # NaN
    _, params, _ = prom.seen[-1]
    assert params == {
        "query": "npu_util",
        "start": "100.0",
        "end": "115.0",
        "step": "15.0",
        "timeout": "9000ms",
    }


@pytest.mark.parametrize(
    ("settings", "sent"),
    [
        ({}, "9000ms"),
        ({"prometheus_timeout_seconds": 4}, "3600ms"),
        ({"promql_query_timeout_seconds": 1.5}, "1500ms"),
    ],
)
async def test_every_query_carries_prometheus_timeout_from_the_settings(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus, settings: dict[str, float], sent: str
) -> None:
    _, url = fake_prometheus
    gateway = PrometheusGateway.from_settings(Settings(prometheus_url=url).model_copy(update=settings))
    try:
        await gateway.query("up")
        await gateway.query("up" + " or up" * 500)  # a form body
        await gateway.query_range("up", start=100, end=115, step_seconds=15)
    finally:
        await gateway.close()
    assert [params["timeout"] for _, params, _ in prom.seen] == [sent, sent, sent]
    assert [method for method, _, _ in prom.seen] == ["GET", "POST", "GET"]


async def test_a_series_count_is_a_count_under_its_own_short_timeout(
    gateway: PrometheusGateway, prom: FakePrometheus
) -> None:
    assert await gateway.count_series("lpu_utilization_percent", timeout_seconds=2) == 1
    _, params, _ = prom.seen[-1]
    assert params == {"query": "count((lpu_utilization_percent))", "timeout": "2000ms"}


async def test_a_count_prometheus_gives_up_on_is_timed_out(gateway: PrometheusGateway) -> None:
    with pytest.raises(PrometheusTimedOut) as caught:
        await gateway.count_series("too_slow", timeout_seconds=0.5)
    assert caught.value.error_type == "timeout" and caught.value.status == 503


async def test_a_count_prometheus_does_not_answer_is_timed_out_soon(gateway: PrometheusGateway) -> None:
    started = asyncio.get_running_loop().time()
    with pytest.raises(PrometheusTimedOut) as caught:
        await gateway.count_series("hangs", timeout_seconds=0.1)
    # The HTTP client waits a little longer than Prometheus was told to, not the full 10 s.
    assert asyncio.get_running_loop().time() - started < 2.4
    assert "did not answer within 1.1 s" in caught.value.detail


async def test_warnings_are_kept(gateway: PrometheusGateway) -> None:
    result = await gateway.query("warned")
    assert result.warnings == ("results truncated due to limit",)


async def test_bad_query_raises_rejected_with_prometheus_error(gateway: PrometheusGateway) -> None:
    with pytest.raises(PrometheusQueryRejected) as caught:
        await gateway.query("sum(up")
    error = caught.value
    assert (error.status, error.error_type, error.query) == (422, "bad_data", "sum(up")
    assert "unclosed left parenthesis" in error.detail
    assert error.extra["error"] == "1:5: parse error: unclosed left parenthesis"


async def test_prometheus_timeout_error_is_unavailable(gateway: PrometheusGateway) -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        await gateway.query("too_slow")
    assert (caught.value.status, caught.value.error_type) == (503, "timeout")
    assert "query timed out" in caught.value.detail


async def test_non_prometheus_answer_is_unavailable(gateway: PrometheusGateway) -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        await gateway.query("html")
    assert "HTTP 502 without a Prometheus API response" in caught.value.detail


async def test_unreachable_prometheus_query_is_unavailable() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    gateway = PrometheusGateway(url)
    try:
        with pytest.raises(PrometheusUnavailable) as caught:
            await gateway.query("up")
    finally:
        await gateway.close()
    assert f"cannot connect to Prometheus at {url}" in caught.value.detail


async def test_bearer_token_from_settings_is_sent(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus
) -> None:
    _, url = fake_prometheus
    gateway = PrometheusGateway.from_settings(
        Settings(prometheus_url=url, prometheus_bearer_token=SecretStr("tok-1"))
    )
    try:
        await gateway.query("up")
    finally:
        await gateway.close()
    assert prom.seen[-1][2] == "Bearer tok-1"


async def test_basic_auth_from_settings_is_sent(
    fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus
) -> None:
    _, url = fake_prometheus
    settings = Settings(
        prometheus_url=url, prometheus_username="scraper", prometheus_password=SecretStr("pw")
    )
    gateway = PrometheusGateway.from_settings(settings)
    try:
        await gateway.query("up")
    finally:
        await gateway.close()
    assert prom.seen[-1][2] == httpx.BasicAuth("scraper", "pw")._auth_header
