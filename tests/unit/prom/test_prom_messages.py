"""What the Prometheus gateway and the PromQL checks refuse is a catalog code with its params, worded
in Korean or English; Prometheus' and the parser's own words are params quoted inside NuFi's sentence."""

from __future__ import annotations

import httpx
import pytest

from nufi.messages import Message
from nufi.models.promql import (
    MAX_EXPRESSION_CHARS,
    ExpressionError,
    ExpressionTooLarge,
    label_name_problem,
    parse_expression,
    range_problem,
)
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable
from nufi.prom.errors import PrometheusAnswerTooLarge, PrometheusTimedOut
from nufi.prom.gateway import PrometheusGateway
from nufi.prom.results import parse_query_data
from nufi.prom.values import parse_sample_value, parse_timestamp
from support.languages import HANGUL

pytestmark = pytest.mark.unit


def gateway(handler: httpx.MockTransport, max_response_bytes: int = 1 << 20) -> PrometheusGateway:
    return PrometheusGateway("http://prom.test", transport=handler, max_response_bytes=max_response_bytes)


def answering(status: int, body: bytes | str) -> httpx.MockTransport:
    content = body.encode() if isinstance(body, str) else body
    return httpx.MockTransport(lambda request: httpx.Response(status, content=content))


async def test_a_query_prometheus_rejects_keeps_its_error_as_a_param() -> None:
    body = '{"status":"error","errorType":"bad_data","error":"parse error at char 4"}'
    with pytest.raises(PrometheusQueryRejected) as caught:
        await gateway(answering(400, body)).query("sum(")
    error = caught.value
    assert error.code == "prometheus.query_rejected"
    assert (error.params["error_type"], error.params["error"]) == ("bad_data", "parse error at char 4")
    assert (
        error.detail == "Prometheus rejected the query 'sum(' (bad_data): parse error at char 4. "
        "Fix the PromQL expression."
    )
    said = error.text("ko")
    assert said.startswith("Prometheus가 쿼리 'sum('을(를) 거부했습니다") and "parse error at char 4" in said


async def test_a_timeout_and_an_answer_that_is_not_prometheus_are_codes() -> None:
    body = '{"status":"error","errorType":"timeout","error":"query timed out"}'
    with pytest.raises(PrometheusTimedOut) as timed_out:
        await gateway(answering(503, body)).query("up")
    assert timed_out.value.code == "prometheus.query_failed" and timed_out.value.status == 503
    with pytest.raises(PrometheusUnavailable) as not_api:
        await gateway(answering(200, "<html>hello</html>")).query("up")
    assert not_api.value.code == "prometheus.not_its_api"
    assert not_api.value.params["status"] == 200
    assert HANGUL.search(not_api.value.text("ko")) and "NUFI_PROMETHEUS_URL" in not_api.value.text("ko")


async def test_an_answer_over_the_bound_names_the_limit_in_each_language() -> None:
    with pytest.raises(PrometheusAnswerTooLarge) as caught:
        await gateway(answering(200, b"x" * 2048), max_response_bytes=1024).query("up")
    assert caught.value.code == "prometheus.answer_too_large" and caught.value.extra["limit_bytes"] == 1024
    assert "NUFI_PROMETHEUS_MAX_RESPONSE_BYTES" in caught.value.detail
    assert "응답을 보냈습니다" in caught.value.text("ko")


@pytest.mark.parametrize(
    ("decode", "code"),
    [
        (lambda: parse_query_data({"resultType": "table"}), "prometheus.malformed"),
        (lambda: parse_sample_value(3), "prometheus.value_not_string"),
        (lambda: parse_sample_value("three"), "prometheus.value_not_number"),
        (lambda: parse_timestamp("now"), "prometheus.timestamp_invalid"),
    ],
)
def test_a_malformed_answer_is_a_code(decode: object, code: str) -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        decode()  # type: ignore[operator]
    assert caught.value.code == code
    assert HANGUL.search(caught.value.text("ko"))


def test_parse_refusals_are_messages() -> None:
    with pytest.raises(ExpressionError) as empty:
        parse_expression("  ")
    assert empty.value.problem == Message("promql.empty")
    with pytest.raises(ExpressionTooLarge) as too_long:
        parse_expression("x" * (MAX_EXPRESSION_CHARS + 1))
    assert too_long.value.problem.code == "promql.too_long"
    assert too_long.value.problem.text("ko").startswith(f"식이 {MAX_EXPRESSION_CHARS + 1}자로 한도")


def test_label_and_range_problems_read_in_korean() -> None:
    reserved = label_name_problem("__name__")
    assert reserved == Message("promql.label.reserved", {"name": "__name__"})
    assert reserved.text("ko").startswith("__name__은(는) __로 시작합니다")
    wide = range_problem("rate(x[2h])", max_range_seconds=3600, min_step_seconds=1)
    assert wide == Message(
        "promql.range_too_wide", {"expression": "rate(x[2h])", "range": "2h", "limit": "1h"}
    )
    assert wide.text("ko").startswith("rate(x[2h])의 범위 선택자가 2h로, NuFi가 허용하는 1h보다 깁니다")
