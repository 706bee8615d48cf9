"""The wizard words every check a service answered from the message catalogs, in the reader's language:
the rules a resource key breaks, an expression the PromQL parser refuses (the parser's own words only
quoted, in a <code> element), a label the series lack, a label name Prometheus reserves. A Korean page
shows none of the service's English sentences.

`offline` is the dashboard with neither a cluster nor Prometheus (a key's syntax and an expression's
parse are judged before either is asked); `live` has the session's real Prometheus.
"""

from __future__ import annotations

import promql_parser
from nicegui import ui
from nicegui.testing import User

from support.polling import eventually

from .wizard_steps import open_wizard, sees
from .wizard_world import shown

BROKEN = "sum(rate(x[5m]"


def _parser_says(expression: str) -> str:
    try:
        promql_parser.parse(expression)
    except ValueError as exc:
        return str(exc)
    raise AssertionError(f"{expression!r} parses")


def _code_of(user: User, marker: str) -> str:
    with user:
        (element,) = user.find(marker=marker).elements
    assert isinstance(element, ui.html)
    return str(element.content)


async def test_each_rule_a_key_breaks_is_told_in_the_readers_language(offline: User) -> None:
    await open_wizard(offline, "ko", 1)
    offline.find(marker="resource_key").type("Example.com/a/b")
    await eventually(sees(offline, "key-result", "리소스 키 형식이 올바르지 않습니다"), within=10)
    await eventually(sees(offline, "key-problem", "/가 2개 있습니다", "소문자 DNS 서브도메인"), within=10)
    assert "contains" not in shown(offline, "key-result")
    assert "lowercase" not in shown(offline, "key-result")
    await open_wizard(offline, "en", 1)  # the same draft, read in English
    await eventually(sees(offline, "key-problem", "contains 2 '/'", "lowercase DNS subdomain"), within=10)
    assert "소문자" not in shown(offline, "key-result")


async def test_a_parse_error_is_a_korean_sentence_with_the_parsers_words_only_quoted(offline: User) -> None:
    await open_wizard(offline, "ko", 2)
    offline.find(marker="labels.node").type("node")
    offline.find(marker="labels.device").type("device")
    offline.find(marker="metrics.utilization").type(BROKEN)
    offline.find(marker="test-metrics.utilization").click()
    await eventually(sees(offline, "metric-error", "올바른 PromQL이 아닙니다", "식을 고치세요"), within=15)
    parser_says = _parser_says(BROKEN)
    assert parser_says not in shown(offline, "metric-error")
    assert "cannot parse" not in shown(offline, "result-metrics.utilization")
    assert _code_of(offline, "metric-parser-words") == f"<code>{parser_says}</code>"
    # Next holds the same rule, told beside the expression in Korean; the parser's words only quoted.
    offline.find(marker="wizard-forward").click()
    await eventually(sees(offline, "error-metrics.utilization", "해석할 수 없습니다", "PromQL 식을 고치세요"))
    assert f"(파서 메시지: “{parser_says}”)" in shown(offline, "error-metrics.utilization")

    await open_wizard(offline, "en", 2)
    offline.find(marker="test-metrics.utilization").click()
    await eventually(sees(offline, "metric-error", f"'{BROKEN}' is not valid PromQL; fix the expression"))
    assert "올바른" not in shown(offline, "result-metrics.utilization")


async def test_a_missing_label_and_a_reserved_label_name_are_told_in_korean(live: User) -> None:
    await open_wizard(live, "ko", 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="labels.pod").type("__pod")
    live.find(marker="metrics.utilization").type("vector(50)")
    live.find(marker="test-metrics.utilization").click()
    await eventually(sees(live, "metric-error", "시리즈 1개 중 1개에 node 레이블이 없습니다"), within=15)
    result = shown(live, "result-metrics.utilization")
    assert "have no" not in result and "NuFi needs" not in result
    await eventually(sees(live, "error-labels.pod", "__pod은(는) __로 시작합니다"), within=5)
    assert "starts with" not in shown(live, "error-labels.pod")
