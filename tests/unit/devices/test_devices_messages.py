"""The catalog's checks and refusals are codes with params, worded in Korean or English from the
message catalogs: no English sentence of the service reaches a Korean reader."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime

import pytest
from pydantic import ValidationError

from nufi.devices import plan as plan_module
from nufi.devices.checks import check_resource_key, enforce_query_bounds
from nufi.devices.drafts import MAX_DRAFT_CHARS, _checked
from nufi.devices.fetcher_registry import FetcherRegistry, UnknownFetcher
from nufi.devices.metric_checks import MetricsCheck, check_metrics
from nufi.devices.plausibility import plausible_reading
from nufi.devices.presets import official_preset
from nufi.devices.readings import DeviceReading, assemble_readings
from nufi.devices.save_checks import _metric_problems
from nufi.devices.spec import DeviceTypeCreate, LabelsDraft, MetricsDraft
from nufi.devices.stored import resolve
from nufi.errors import NotFound, NufiError, ValidationFailed
from nufi.messages import Message
from nufi.messages.validation import validation_message
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, QueryResult, Sample
from nufi.prom.errors import PrometheusTimedOut
from nufi.prom.gateway import AdminQueryLimits, PrometheusGateway
from support.languages import HANGUL

pytestmark = pytest.mark.unit

# Words of the English sentences that must never reach a Korean reader.
ENGLISH = re.compile(r"\b(the|is|are|has|have|not|series|label|cannot|Prometheus has)\b")
LABELS = LabelsDraft(node="node", device="device")


LIMITS = AdminQueryLimits(
    max_range_seconds=3600, min_subquery_step_seconds=1, max_series=100, series_check_timeout_seconds=2
)


class FakeCounter:
    """Counts every expression's series as one."""

    async def count_series(self, expression: str, *, timeout_seconds: float) -> int:
        return 1


def korean(text: str) -> str:
    assert HANGUL.search(text), text
    assert not ENGLISH.search(text.replace("PromQL", "")), text
    return text


class FakePrometheus:
    """Answers every query from one table; an exception is raised."""

    def __init__(self, answer: QueryResult | Exception) -> None:
        self.answer = answer

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def vector(*metrics: dict[str, str], value: float = 50.0) -> QueryResult:
    return QueryResult("vector", samples=tuple(Sample(metric=m, timestamp=1.0, value=value) for m in metrics))


def checked(expression: str, answer: QueryResult | Exception, labels: LabelsDraft = LABELS) -> MetricsCheck:
    metrics = MetricsDraft(utilization=expression)
    return asyncio.run(check_metrics(labels, metrics, FakePrometheus(answer)))


def test_a_broken_resource_key_names_each_rule_as_a_code() -> None:
    result = asyncio.run(check_resource_key("Example.com/a/b", cluster=None))  # type: ignore[arg-type]
    assert (result.valid, result.code) == (False, "resource_key.invalid")
    rules = {said.code: said.params for said in result.problem_messages}
    assert rules["resource_key.rule.extra_slash"]["slashes"] == 2
    assert rules["resource_key.rule.prefix_syntax"]["prefix"] == "Example.com"
    # The English stays as it was, for API callers who read it.
    assert "contains 2 '/'" in result.message and result.problems[0] in result.message
    said = korean(result.said.text("ko"))
    assert "/가 2개 있습니다" in said and "소문자 DNS 서브도메인" in said


def test_no_series_yet_is_a_warning_worded_in_each_language() -> None:
    result = checked("nufi_nothing", vector()).results["utilization"]
    (warning,) = result.warning_messages
    assert (warning.code, warning.params) == ("metric_check.no_series", {"query": "nufi_nothing"})
    assert result.warnings[0].startswith("no series yet: Prometheus has no data for 'nufi_nothing'")
    said = warning.text("ko")
    assert said.startswith("아직 시리즈 없음: 지금 Prometheus에 nufi_nothing의 데이터가 없습니다")
    assert "no data" not in said


def test_a_parse_error_quotes_the_parser_inside_a_sentence_of_our_own() -> None:
    result = checked("sum(rate(x[5m]", vector()).results["utilization"]
    assert result.error_message is not None and result.error_message.code == "metric_check.unparsable"
    problem = result.error_message.params["problem"]
    assert problem["code"] == "promql.syntax" and problem["params"]["expression"] == "sum(rate(x[5m]"
    reason = problem["params"]["reason"]
    assert result.error is not None and reason in result.error
    assert result.error.endswith("Fix the PromQL expression.")
    said = result.error_message.text("ko")
    assert said.startswith("PromQL 식 sum(rate(x[5m]을(를) 해석할 수 없습니다") and "고치세요" in said


def test_series_without_a_label_are_an_error_with_the_counts() -> None:
    result = checked("up", vector({"device": "d0"}, {"node": "n1", "device": "d1"})).results["utilization"]
    assert result.error_message is not None and result.error_message.code == "metric_check.missing_labels"
    which = result.error_message.params["which"]
    assert which == {"code": "metric_check.label_absent", "params": {"count": 1, "total": 2, "name": "node"}}
    assert result.error is not None and result.error.startswith("1 of 2 series have no 'node' label")
    said = result.error_message.text("ko")
    assert said.startswith("시리즈 2개 중 1개에 node 레이블이 없습니다") and "have no" not in said


def test_duplicate_series_use_the_plural_rule_not_a_bracketed_s() -> None:
    twice = vector({"node": "n", "device": "d"}, {"node": "n", "device": "d"})
    (warning,) = checked("up", twice).results["utilization"].warnings
    assert warning.startswith("1 device has more than one series (e.g. node=n, device=d)")


def test_bad_label_names_are_codes_per_label() -> None:
    labels = LabelsDraft(node="node", device="node", pod="__pod")
    check = checked("up", vector({"node": "n"}), labels)
    assert check.label_error_messages["pod"].code == "promql.label.reserved"
    assert check.label_error_messages["device"].code == "metric_check.labels_same"
    assert "starts with '__'" in check.label_errors["pod"]
    assert korean(check.label_error_messages["pod"].text("ko")).startswith("__pod은(는) __로 시작합니다")


def test_prometheus_refusing_or_missing_is_worded_from_its_code() -> None:
    rejected = PrometheusQueryRejected(
        code="prometheus.query_rejected", query="up", error_type="bad_data", error="parse error at char 3"
    )
    result = checked("up", rejected).results["utilization"]
    assert result.error_message is not None and result.error_message.code == "metric_check.rejected"
    assert result.error_message.params == {
        "query": "up",
        "error_type": "bad_data",
        "error": "parse error at char 3",
    }
    timed_out = PrometheusTimedOut(code="prometheus.timed_out", params={"url": "http://p", "seconds": 2.5})
    result = checked("up", timed_out).results["utilization"]
    assert (
        result.error
        == "the expression could not be tried: Prometheus at http://p did not answer within 2.5 s"
    )
    assert result.error_message is not None
    assert (
        result.error_message.text("ko")
        == "식을 시험하지 못했습니다: http://p의 Prometheus가 2.5초 안에 응답하지 않았습니다"
    )


def test_an_unconfigured_prometheus_says_so_in_korean() -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        asyncio.run(PrometheusGateway(None).query("up"))
    assert caught.value.code == "prometheus.not_configured"
    assert korean(caught.value.text("ko")).startswith("Prometheus가 설정되지 않았습니다")
    assert caught.value.detail.startswith("Prometheus is not configured: set NUFI_PROMETHEUS_URL")


def test_a_saved_document_refuses_broken_promql_with_a_catalog_code() -> None:
    with pytest.raises(ValidationError) as caught:
        DeviceTypeCreate.model_validate(
            {
                "id": "npu",
                "name": "NPU",
                "vendor": "Example",
                "resource_key": "example.com/npu",
                "labels": {"node": "node", "device": "device"},
                "metrics": {"utilization": "sum(x"},
            }
        )
    (error,) = caught.value.errors()
    assert error["type"] == "device_type.promql_unparsable"
    message = validation_message(error)
    assert message.text("en").endswith("(fix the PromQL expression)")
    assert message.text("ko").startswith("PromQL 식 sum(x을(를) 해석할 수 없습니다")


@pytest.mark.parametrize(
    ("raise_it", "code"),
    [
        (lambda: resolve("no-such", None), "device_type.not_found"),
        (lambda: _checked({"x": "y" * (MAX_DRAFT_CHARS + 1)}), "draft.too_large"),
        (lambda: FetcherRegistry({}).get("gpu-x"), "fetcher.unknown"),
    ],
)
def test_refusals_carry_a_code_and_are_worded_in_korean(raise_it: object, code: str) -> None:
    with pytest.raises(NufiError) as caught:
        raise_it()  # type: ignore[operator]
    assert caught.value.code == code
    korean(caught.value.text("ko"))
    assert isinstance(caught.value, NotFound | ValidationFailed | UnknownFetcher)


def test_an_implausible_reading_is_a_message_with_its_device() -> None:
    reading = DeviceReading(node="n1", device="d0", utilization_percent=250.0)
    _, (found,) = plausible_reading(reading)
    assert found.said.code == "plausibility.reading" and found.why.code == "plausibility.utilization"
    assert (
        found.message
        == "device d0 on node n1: utilization 250 % is outside 0 to 100 %; it is shown as not reported"
    )
    assert found.said.text("ko").startswith("노드 n1의 디바이스 d0: 사용률 250%가 0~100% 범위를 벗어납니다")


def test_readings_name_their_problems_as_messages() -> None:
    metrics = MetricsDraft(utilization="up", temperature="t")
    down = PrometheusUnavailable(code="prometheus.not_configured")
    outcomes = {"utilization": QueryResult("scalar", samples=(Sample({}, 1.0, 1.0),)), "temperature": down}
    readings = assemble_readings(LABELS, metrics, outcomes)  # type: ignore[arg-type]
    said = {problem.metric: problem.said for problem in readings.problems}
    assert isinstance(said["utilization"], Message) and said["utilization"].code == "readings.not_vector"
    assert (
        isinstance(said["temperature"], Message) and said["temperature"].code == "prometheus.not_configured"
    )
    korean(said["utilization"].text("ko"))
    assert readings.problems[0].message.startswith("'up' returns a scalar, not one series per device")


def test_the_catalogs_own_refusals_carry_codes_and_read_in_korean() -> None:
    stale = plan_module.stale_revision("lpu", 3, 2)
    assert (stale.code, stale.params["current_revision"], stale.params["expected_revision"]) == (
        "device_type.stale",
        3,
        2,
    )
    assert "리비전 3" in korean(stale.text("ko"))
    preset = official_preset("nvidia-gpu")
    assert preset is not None
    with pytest.raises(ValidationFailed) as caught:
        plan_module.refuse_identity_change(preset, {**preset.model_dump(), "name": "Other"})
    assert (caught.value.code, caught.value.field) == ("device_type.official_identity", "name")
    korean(caught.value.text("ko"))
    with pytest.raises(ValidationFailed) as caught:
        plan_module.validated_type({**preset.model_dump(mode="json"), "resource_key": "kubernetes.io/x"})
    assert (caught.value.code, caught.value.field) == ("device_type.invalid_field", "resource_key")
    reason = caught.value.params["reason"]
    assert isinstance(reason, dict) and reason["code"] == "resource_key.problems"
    assert "kubernetes.io/ 도메인은 Kubernetes 전용입니다" in korean(caught.value.text("ko"))


async def test_a_costly_range_is_refused_with_its_bound_as_a_nested_message() -> None:
    counter = FakeCounter()
    draft = MetricsDraft(utilization="max_over_time(u[30d:1m])")
    with pytest.raises(ValidationFailed) as caught:
        await enforce_query_bounds(draft, counter, LIMITS)
    assert caught.value.code == "query_bounds.range" and caught.value.field == "metrics.utilization"
    problem = caught.value.params["problem"]
    assert isinstance(problem, dict) and problem["code"] == "promql.subquery_too_wide"
    said = korean(caught.value.text("ko"))
    assert said.startswith("metrics.utilization: max_over_time(u[30d:1m])의 서브쿼리 범위가 30d로")


def test_a_save_refuses_a_failing_expression_naming_each_problem() -> None:
    check = checked("up", vector({"device": "d0"}))
    with pytest.raises(ValidationFailed) as caught:
        _metric_problems(check, force=False)
    assert (caught.value.code, caught.value.field) == ("save.metric_failed", "metrics.utilization")
    problems = caught.value.params["problems"]
    assert isinstance(problems, list)
    codes = [problem["code"] for problem in problems]
    assert codes == ["metric_check.missing_labels", "save.label_lacking"]
    assert caught.value.detail.endswith("series lack the label 'node' (or save with ?force=true)")
    assert korean(caught.value.text("ko")).endswith("(또는 ?force=true로 저장하세요)")
    assert _metric_problems(check, force=True)[1] == "utilization: series lack the label 'node'"
