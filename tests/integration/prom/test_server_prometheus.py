"""PrometheusGateway against the real Prometheus server of the test run.

Only constant expressions are queried, so no scrape has to happen first.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from nufi.api import create_app
from nufi.config import Settings
from nufi.prom import PrometheusGateway, PrometheusQueryRejected
from nufi_sandbox.prometheus import PrometheusServer
from support.asgi import serving
from support.env import clear_nufi_env


@pytest.fixture
async def gateway(prometheus: PrometheusServer) -> AsyncIterator[PrometheusGateway]:
    gateway = PrometheusGateway(prometheus.url, timeout_seconds=10)
    try:
        yield gateway
    finally:
        await gateway.close()


async def test_check_reports_ready(gateway: PrometheusGateway, prometheus: PrometheusServer) -> None:
    status = await gateway.check()
    assert (status.ok, status.configured) == (True, True)
    assert prometheus.url in status.detail


async def test_instant_vector_with_labels(gateway: PrometheusGateway) -> None:
    result = await gateway.query('label_replace(vector(2.5), "device", "npu0", "", "")')
    assert result.result_type == "vector"
    (sample,) = result.samples
    assert sample.metric == {"device": "npu0"}
    assert sample.value == 2.5
    assert abs(sample.timestamp - time.time()) < 60


@pytest.mark.parametrize(
    ("promql", "check"),
    [
        ("0/0", math.isnan),
        ("1/0", lambda v: v == math.inf),
        ("-1/0", lambda v: v == -math.inf),
        ("0.1+0.2", lambda v: v == 0.1 + 0.2),
    ],
)
async def test_scalar_specials_and_precision(gateway: PrometheusGateway, promql: str, check: object) -> None:
    result = await gateway.query(promql)
    assert result.result_type == "scalar"
    assert callable(check) and check(result.samples[0].value)


async def test_evaluation_time_is_honoured(gateway: PrometheusGateway) -> None:
    at = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    result = await gateway.query("time()", time=at)
    assert result.samples[0].value == at.timestamp()
    assert result.samples[0].timestamp == at.timestamp()


async def test_string_result(gateway: PrometheusGateway) -> None:
    result = await gateway.query('"hello"')
    assert (result.result_type, result.text) == ("string", "hello")


async def test_long_query_goes_through(gateway: PrometheusGateway) -> None:
    promql = "vector(1)" + " + 0" * 700
    result = await gateway.query(promql)
    assert result.samples[0].value == 1.0


async def test_range_query_returns_every_step(gateway: PrometheusGateway) -> None:
    end = time.time()
    result = await gateway.query_range("vector(3)", start=end - 60, end=end, step_seconds=15)
    (series,) = result.series
    assert [value for _, value in series.points] == [3.0] * 5
    timestamps = [t for t, _ in series.points]
    assert timestamps == sorted(timestamps)


async def test_parse_error_raises_rejected_with_prometheus_error_type(gateway: PrometheusGateway) -> None:
    with pytest.raises(PrometheusQueryRejected) as caught:
        await gateway.query("sum(rate(")
    assert caught.value.error_type == "bad_data"
    assert "sum(rate(" in caught.value.detail
    assert caught.value.error


async def test_execution_error_raises_rejected(gateway: PrometheusGateway) -> None:
    # Matching many-to-one without group_left is an execution error, not a parse error.
    many = 'vector(1) or label_replace(vector(2), "b", "y", "", "")'
    promql = f'label_replace(vector(1), "a", "x", "", "") * on() ({many})'
    with pytest.raises(PrometheusQueryRejected) as caught:
        await gateway.query(promql)
    assert caught.value.error_type == "execution"


async def test_readyz_with_the_real_prometheus(
    prometheus: PrometheusServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_nufi_env(monkeypatch)
    app = create_app(Settings(prometheus_url=prometheus.url))
    async with serving(app) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    status = {d["name"]: d for d in response.json()["dependencies"]}["prometheus"]
    assert status["ok"] is True
