"""Error answers as each engine really writes them (captured from Debian's Prometheus 2 and
VictoriaMetrics 1.79; tests/integration/victoriametrics asks the live binaries the same questions), and
what the gateway makes of them: the query's fault is a 422 rejection, the server's trouble a 503."""

from __future__ import annotations

import httpx
import pytest

from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable
from nufi.prom.errors import PrometheusTimedOut
from nufi.prom.gateway import PrometheusGateway

pytestmark = pytest.mark.unit

# (engine, HTTP status, body) of a query that cannot be parsed or executed.
REJECTED = [
    (
        "prometheus-parse",
        400,
        '{"status":"error","errorType":"bad_data","error":"invalid parameter \\"query\\": 1:7: parse error: '
        'unclosed left parenthesis"}',
    ),
    (
        "prometheus-execution",
        422,
        '{"status":"error","errorType":"execution","error":"found duplicate series for the match group {} '
        'on the right hand-side of the operation: [{x=\\"2\\"}, {x=\\"1\\"}];many-to-many matching not '
        'allowed: matching labels must be unique on one side"}',
    ),
    (
        "victoriametrics-parse",
        422,
        '{"status":"error","errorType":"422","error":"error when executing query=\\"sum(up\\" for '
        '(time=1796507219574, step=300000): argList: unexpected token \\"\\"; want \\",\\", \\")\\"; '
        'unparsed data: \\"\\""}',
    ),
    (
        "victoriametrics-points",
        422,
        '{"status":"error","errorType":"422","error":"error when executing query=\\"count(count_over_time('
        'vector(1)[30d:1s]))\\" for (time=1796507219613, step=300000): cannot evaluate \\"count_over_time('
        'vector(1)[30d:1s])\\": too many points for the given step=1000, start=1793914918613 and '
        'end=1796507220613: 2592303; cannot exceed -search.maxPointsPerTimeseries=30000"}',
    ),
]
PROMETHEUS_TIMEOUT = (
    '{"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"}'
)


def answering(status: int, body: str) -> PrometheusGateway:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body.encode(), headers={"Content-Type": "application/json"})

    return PrometheusGateway("http://engine.test", transport=httpx.MockTransport(handler))


@pytest.mark.parametrize(("engine", "status", "body"), REJECTED, ids=[row[0] for row in REJECTED])
async def test_a_query_the_engine_refuses_is_rejected_not_unavailable(
    engine: str, status: int, body: str
) -> None:
    gateway = answering(status, body)
    with pytest.raises(PrometheusQueryRejected) as caught:
        await gateway.query("q")
    assert caught.value.status == 422
    assert caught.value.error_type in {"bad_data", "execution", "422"}
    assert caught.value.error.split()[0] in body


async def test_a_prometheus_timeout_is_timed_out() -> None:
    gateway = answering(503, PROMETHEUS_TIMEOUT)
    with pytest.raises(PrometheusTimedOut) as caught:
        await gateway.query("q")
    assert (caught.value.status, caught.value.error_type) == (503, "timeout")


@pytest.mark.parametrize(("status", "error_type"), [(503, "503"), (503, "unavailable"), (500, "internal")])
async def test_the_servers_own_trouble_stays_unavailable(status: int, error_type: str) -> None:
    body = f'{{"status":"error","errorType":"{error_type}","error":"storage is not ready"}}'
    with pytest.raises(PrometheusUnavailable) as caught:
        await answering(status, body).query("q")
    assert caught.value.status == 503
