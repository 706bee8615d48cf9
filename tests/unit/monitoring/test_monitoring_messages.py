"""Monitoring's refusals are codes with params: the API and the dashboard word them in Korean or
English from the catalogs, never from a sentence of the service's own."""

from __future__ import annotations

import pytest

from nufi.cluster.kube_errors import KubeRefused, refusal_error
from nufi.errors import ValidationFailed
from nufi.messages import Message
from nufi.monitoring.contracts import ContinueExpired
from nufi.monitoring.ranges.request import RangeQuery, parse_range_request
from nufi.monitoring.ranges.result import _unplaced as unplaced
from nufi.monitoring.snapshots.paging import parse_page_query
from nufi.monitoring.snapshots.snapshot import MonitoringError, said_of
from support.languages import korean_of

pytestmark = pytest.mark.unit

NOW = 1_777_636_800.0


def refused(**given: str | None) -> ValidationFailed:
    query = {"node": None, "limit": None, "continue_token": None, "sort": None, "order": None} | given
    with pytest.raises(ValidationFailed) as caught:
        parse_page_query(**query)
    return caught.value


def refused_range(**given: str) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        parse_range_request(RangeQuery("temperature", **given), now=NOW, finest_step_seconds=15.0)  # type: ignore[arg-type]
    return caught.value


def test_an_unknown_sort_names_the_value_and_the_keys() -> None:
    error = refused(sort="hotness")
    assert (error.code, error.field) == ("monitoring.sort_unknown", "sort")
    assert error.params["value"] == "hotness" and "temperature" in str(error.params["allowed"])
    assert error.detail.startswith("sort 'hotness' is not one of node, ")
    assert korean_of(error).startswith("sort 'hotness'은(는) node, ")


@pytest.mark.parametrize(("limit", "code"), [("ten", "limit_not_number"), ("0", "limit_out_of_range")])
def test_a_bad_limit_says_the_range(limit: str, code: str) -> None:
    error = refused(limit=limit)
    assert error.code == f"monitoring.{code}" and error.params["value"] == limit
    assert f"1부터 {error.params['max']} 사이의 정수" in korean_of(error)


def test_a_malformed_continue_token_is_told_to_start_again() -> None:
    error = refused(continue_token="not-a-token")
    assert (error.code, error.field) == ("monitoring.continue_malformed", "continue")
    assert "continue 없이 처음부터 다시 요청하세요" in korean_of(error)


def test_an_expired_continue_token_is_a_410_worded_in_korean() -> None:
    error = ContinueExpired(code="monitoring.continue_expired", field="continue")
    assert error.status == 410 and "no longer kept" in error.detail
    assert "더 이상 보관하지 않습니다" in korean_of(error)


def test_a_reversed_range_names_both_ends() -> None:
    error = refused_range(start=str(NOW), end=str(NOW - 60))
    assert error.code == "monitoring.range_reversed"
    assert error.params["start"] == "1777636800" and error.params["end"] == "1777636740"
    assert korean_of(error).startswith("start(1777636800)는 end(1777636740)보다 앞서야 합니다")


def test_a_range_too_long_words_its_spans_in_the_readers_units() -> None:
    error = refused_range(start=str(NOW - 40 * 86400), end=str(NOW))
    assert error.code == "monitoring.range_too_long" and error.extra["limit"] == NOW - 31 * 86400
    assert "is 40 days, longer than the 31 days allowed" in error.detail
    assert "start부터 end까지 40일로, 허용된 31일" in korean_of(error)


def test_a_step_finer_than_prometheus_evaluates_is_refused_in_milliseconds() -> None:
    error = refused_range(start=str(NOW - 60), end=str(NOW), step="0.0001")
    assert error.code == "monitoring.step_too_fine" and error.field == "step"
    assert "밀리초보다 짧습니다" in korean_of(error)


def test_a_step_giving_too_many_points_names_the_span() -> None:
    error = refused_range(start=str(NOW - 86400), end=str(NOW), step="1")
    assert error.code == "monitoring.step_too_many_points"
    assert "이 범위(1일)에서" in korean_of(error) and "range of 1 day (" in error.detail


def test_a_time_that_is_not_one_names_the_field_and_the_value() -> None:
    error = refused_range(start="yesterday")
    assert (error.code, error.field, error.params["value"]) == (
        "monitoring.time_invalid",
        "start",
        "yesterday",
    )
    assert korean_of(error).startswith("start 'yesterday'은(는) 시각이 아닙니다")


def test_a_snapshot_problem_carries_the_code_of_the_error_behind_it() -> None:
    refused = refusal_error(KubeRefused(403, "Forbidden", "nodes is forbidden"))
    error = MonitoringError("kubernetes", refused.detail, said=said_of(refused))
    assert error.code == "kube.credentials_refused" and error.params is not None
    assert (error.params["status"], error.params["message"]) == (403, "nodes is forbidden")
    stale = Message("monitoring.last_good", {"failure": said_of(refused), "at": "2026-05-01T12:00:00.000Z"})
    params = MonitoringError("prometheus", "x", said=stale).params
    assert params is not None and params["failure"] == {"code": error.code, "params": error.params}
    assert stale.text("ko") == (
        "Kubernetes가 NuFi의 자격 증명을 거부했습니다(HTTP 403): nodes is forbidden. deploy/에 적힌 권한을 "
        "NuFi 서비스 계정에 부여하세요. 2026-05-01T12:00:00.000Z에 평가한 마지막 정상 스냅숏을 보여 줍니다"
    )


def test_series_left_out_name_the_labels_they_lack() -> None:
    error = unplaced(3, "host", "gpu")
    assert (error.code, error.params) == (
        "monitoring.series_unplaced_device",
        {"count": 3, "node_label": "host", "device_label": "gpu"},
    )
    assert error.text("en") == "3 series lack the label 'host' or 'gpu' and were left out"
    assert error.text("ko") == "시계열 3개에 host 또는 gpu 레이블이 없어 제외했습니다"
