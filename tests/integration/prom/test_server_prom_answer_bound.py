"""The bound on the size of Prometheus' answers (NUFI_PROMETHEUS_MAX_RESPONSE_BYTES).

A small fake Prometheus on loopback (Starlette under uvicorn in a thread) answers valid Prometheus
JSON of a chosen size, with a Content-Length, chunked, or gzip-compressed; the gateway's HTTP client
runs unmocked, only wrapped to count the body bytes the gateway actually pulls off the connection.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

import httpx
import pytest
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from nufi.config import Settings
from nufi.prom import PrometheusAnswerTooLarge, PrometheusGateway, PrometheusUnavailable
from support.loopback import serve_in_thread

_CHUNK = 8 * 1024
# The endless answer: far more than any bound below, so reading it whole would show.
_ENDLESS_SERIES = 150_000
_FIX = "narrow the expression (fewer series or labels) or raise NUFI_PROMETHEUS_MAX_RESPONSE_BYTES"


pytestmark = pytest.mark.usefixtures("clean_env")


def _series(index: int) -> bytes:
    metric = {"__name__": "lpu_utilization_percent", "instance": f"node-{index:06d}", "device": "lpu0"}
    return json.dumps({"metric": metric, "value": [1700000000, "42"]}).encode()


_HEAD = b'{"status":"success","data":{"resultType":"vector","result":['
_TAIL = b"]}}"


def vector_body(series: int) -> bytes:
    """A valid Prometheus answer to an instant query selecting `series` series."""
    return _HEAD + b",".join(_series(i) for i in range(series)) + _TAIL


def _endless_body() -> Iterator[bytes]:
    """A valid answer of about 16 MB, produced 64 series (7 KB) at a time."""
    yield _HEAD
    for start in range(0, _ENDLESS_SERIES, 64):
        batch = b",".join(_series(i) for i in range(start, min(start + 64, _ENDLESS_SERIES)))
        yield (b"," if start else b"") + batch
    yield _TAIL


@dataclass
class FakePrometheus:
    """Answers every query with `body`, sent the way the query's first word says."""

    body: bytes = b""
    seen: list[str] = field(default_factory=list)

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/api/v1/query", self.query, methods=["GET", "POST"])])

    async def query(self, request: Request) -> Response:
        params = dict(request.query_params)
        if request.method == "POST":
            params.update(parse_qsl((await request.body()).decode()))
        self.seen.append(request.method)
        mode = params.get("query", "").split()[0]
        if mode == "length":
            return Response(self.body, media_type="application/json")
        if mode == "gzip":
            return Response(
                gzip.compress(self.body),
                media_type="application/json",
                headers={"Content-Encoding": "gzip"},
            )
        if mode == "chunked":
            pieces = [self.body[i : i + _CHUNK] for i in range(0, len(self.body), _CHUNK)]
            return StreamingResponse(iter(pieces), media_type="application/json")
        if mode == "endless":
            return StreamingResponse(_endless_body(), media_type="application/json")
        raise AssertionError(f"no such mode: {mode!r}")


class _CountedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, tally: CountingTransport) -> None:
        self._inner = inner
        self._tally = tally

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._tally.pulled += len(chunk)
            yield chunk

    async def aclose(self) -> None:
        self._tally.closed = True
        await self._inner.aclose()


class CountingTransport(httpx.AsyncBaseTransport):
    """httpx's own transport, counting the body bytes (as sent, before decoding) read off the wire."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.pulled = 0
        self.closed = False
        self.headers = httpx.Headers()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        self.pulled, self.closed, self.headers = 0, False, response.headers
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_CountedStream(response.stream, self),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.fixture(scope="module")
def fake_prometheus() -> Iterator[tuple[FakePrometheus, str]]:
    fake = FakePrometheus()
    with serve_in_thread(fake.app(), name="fake-prometheus-big-answers") as url:
        yield fake, url


@pytest.fixture
def prom(fake_prometheus: tuple[FakePrometheus, str]) -> FakePrometheus:
    fake, _ = fake_prometheus
    fake.body = vector_body(200)
    fake.seen.clear()
    return fake


@pytest.fixture
def url(fake_prometheus: tuple[FakePrometheus, str], prom: FakePrometheus) -> str:
    return fake_prometheus[1]


def _assert_sent_as(transport: CountingTransport, mode: str) -> None:
    """The fake really answered the way the test claims."""
    if mode == "chunked":
        assert transport.headers.get("transfer-encoding") == "chunked"
        assert "content-length" not in transport.headers
    else:
        assert "content-length" in transport.headers
        assert (transport.headers.get("content-encoding") == "gzip") == (mode == "gzip")


@pytest.mark.parametrize("mode", ["length", "chunked", "gzip"])
async def test_an_answer_one_byte_over_the_bound_is_refused_naming_the_limit(
    url: str, prom: FakePrometheus, mode: str
) -> None:
    limit = len(prom.body) - 1
    transport = CountingTransport()
    gateway = PrometheusGateway(url, max_response_bytes=limit, transport=transport)
    try:
        with pytest.raises(PrometheusAnswerTooLarge) as caught:
            await gateway.query(f"{mode} lpu_utilization_percent")
    finally:
        await gateway.close()
    _assert_sent_as(transport, mode)
    error = caught.value
    assert isinstance(error, PrometheusUnavailable)
    assert (error.status, error.type, error.dependency) == (503, "prometheus-unavailable", "prometheus")
    assert (error.query, error.limit_bytes) == (f"{mode} lpu_utilization_percent", limit)
    assert error.extra["limit_bytes"] == limit and error.extra["query"] == error.query
    assert f"the query '{mode} lpu_utilization_percent'" in error.detail
    kib = f"{limit // 1024}" if limit % 1024 == 0 else f"{limit / 1024:.1f}"
    assert f"with more than {kib} KiB, the most NuFi reads;" in error.detail
    assert error.detail.endswith(_FIX)
    assert transport.closed


@pytest.mark.parametrize("mode", ["length", "chunked", "gzip"])
async def test_an_answer_exactly_at_the_bound_still_parses(url: str, prom: FakePrometheus, mode: str) -> None:
    transport = CountingTransport()
    gateway = PrometheusGateway(url, max_response_bytes=len(prom.body), transport=transport)
    try:
        result = await gateway.query(f"{mode} lpu_utilization_percent")
    finally:
        await gateway.close()
    _assert_sent_as(transport, mode)
    assert len(result.samples) == 200
    assert result.samples[199].metric["instance"] == "node-000199"
    assert result.samples[0].value == 42.0


async def test_a_declared_length_over_the_bound_is_refused_before_the_body_is_read(
    url: str, prom: FakePrometheus
) -> None:
    prom.body = vector_body(20_000)  # about 2 MiB
    transport = CountingTransport()
    gateway = PrometheusGateway(url, max_response_bytes=1024**2, transport=transport)
    try:
        with pytest.raises(PrometheusAnswerTooLarge) as caught:
            await gateway.query("length up")
        assert transport.pulled == 0 and transport.closed
        # The connection given up on does not spoil the next query.
        prom.body = vector_body(3)
        assert len((await gateway.query("length up")).samples) == 3
    finally:
        await gateway.close()
    assert "more than 1 MiB, the most NuFi reads" in caught.value.detail


async def test_a_chunked_answer_is_given_up_on_as_soon_as_it_passes_the_bound(
    url: str, prom: FakePrometheus
) -> None:
    limit = 64 * 1024
    transport = CountingTransport()
    gateway = PrometheusGateway(url, max_response_bytes=limit, transport=transport)
    try:
        with pytest.raises(PrometheusAnswerTooLarge) as caught:
            await gateway.query("endless lpu_utilization_percent")
        assert transport.headers.get("transfer-encoding") == "chunked"
        assert transport.closed
        # Read past the bound by at most what one read off the socket brings, not the ~16 MB sent.
        assert limit < transport.pulled <= limit + 256 * 1024
        prom.body = vector_body(3)
        assert len((await gateway.query("chunked up")).samples) == 3
    finally:
        await gateway.close()
    assert "more than 64 KiB" in caught.value.detail


async def test_a_long_query_sent_as_a_form_is_bounded_too(url: str, prom: FakePrometheus) -> None:
    promql = "chunked up" + " or up" * 500
    gateway = PrometheusGateway(url, max_response_bytes=len(prom.body) - 1)
    try:
        with pytest.raises(PrometheusAnswerTooLarge) as caught:
            await gateway.query(promql)
    finally:
        await gateway.close()
    assert prom.seen == ["POST"]
    assert caught.value.query == promql


async def test_the_bound_comes_from_nufi_prometheus_max_response_bytes(
    url: str, prom: FakePrometheus, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Settings().prometheus_max_response_bytes == 64 * 1024**2
    default = PrometheusGateway.from_settings(Settings(prometheus_url=url))
    await default.close()
    assert default.max_response_bytes == PrometheusGateway(None).max_response_bytes == 64 * 1024**2

    monkeypatch.setenv("NUFI_PROMETHEUS_MAX_RESPONSE_BYTES", "1536")
    gateway = PrometheusGateway.from_settings(Settings(prometheus_url=url))
    try:
        assert gateway.max_response_bytes == 1536
        with pytest.raises(PrometheusAnswerTooLarge) as caught:
            await gateway.query("chunked up")
    finally:
        await gateway.close()
    assert "more than 1.5 KiB, the most NuFi reads" in caught.value.detail


@pytest.mark.parametrize("value", [1023, 4 * 1024**3 + 1])
def test_a_bound_outside_1_kib_to_4_gib_is_refused(value: int) -> None:
    with pytest.raises(ValidationError, match="prometheus_max_response_bytes"):
        Settings(prometheus_max_response_bytes=value)
