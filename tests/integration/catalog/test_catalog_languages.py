"""The catalog's REST API answers in the caller's language: a problem's `title` and `detail` in Korean
for `Accept-Language: ko` (English otherwise), always with its `code` and `params`; a check result
words its sentences in the caller's language too and carries each as a `{code, params}` beside them."""

from __future__ import annotations

import httpx

from nufi.messages import render
from support.languages import HANGUL
from support.lpu_type import LPU_LABELS, LPU_METRICS, lpu_type
from support.nufi_app import bearer
from support.world import World


def _in(world: World, language: str) -> dict[str, str]:
    return {**bearer(world.admin_token), "Accept-Language": language}


async def test_a_broken_resource_key_is_refused_in_korean_with_its_rules_as_codes(
    nufi: httpx.AsyncClient, world: World
) -> None:
    body = {"resource_key": "Example.com/a/b"}
    refused = await nufi.post("/api/v1/admin/devices/check-resource-key", json=body, headers=_in(world, "ko"))
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["title"] == "입력 검증 실패"
    assert problem["code"] == "resource_key.invalid" and problem["field"] == "resource_key"
    assert problem["params"]["key"] == "Example.com/a/b"
    rules = {rule["code"]: rule["params"] for rule in problem["params"]["problems"]}
    assert rules["resource_key.rule.extra_slash"] == {"key": "Example.com/a/b", "slashes": 2}
    assert problem["detail"].startswith("Example.com/a/b은(는) 올바른 리소스 키가 아닙니다")
    assert "/가 2개 있습니다" in problem["detail"] and "contains" not in problem["detail"]
    # The English list of problems stays a member of the body, as before.
    assert any("contains 2 '/'" in text for text in problem["problems"])

    english = await nufi.post("/api/v1/admin/devices/check-resource-key", json=body, headers=_in(world, "en"))
    assert english.json()["title"] == "Validation failed"
    assert english.json()["detail"].startswith("'Example.com/a/b' is not a valid resource key: ")


async def test_a_broken_expression_is_refused_in_korean_on_save(
    nufi: httpx.AsyncClient, world: World
) -> None:
    document = lpu_type(id="lpu-ko", metrics={**LPU_METRICS, "utilization": "sum(x"})
    refused = await nufi.post("/api/v1/admin/devices", json=document, headers=_in(world, "ko"))
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["title"] == "입력 검증 실패"
    (error,) = problem["errors"]
    assert error["code"] == "device_type.promql_unparsable"
    assert error["params"]["problem"]["code"] == "promql.syntax"
    assert error["params"]["problem"]["params"]["expression"] == "sum(x"
    assert "PromQL 식 sum(x을(를) 해석할 수 없습니다" in problem["detail"], problem["detail"]
    assert "cannot parse" not in problem["detail"]


async def test_a_resource_key_check_answers_in_the_callers_language(
    nufi: httpx.AsyncClient, world: World
) -> None:
    body = {"resource_key": "example.com/nothing-here"}
    for language in ("ko", "en"):
        answer = await nufi.post(
            "/api/v1/admin/devices/check-resource-key", json=body, headers=_in(world, language)
        )
        assert answer.status_code == 200, answer.text
        check = answer.json()
        assert check["code"].startswith("resource_key.not_found"), check
        assert check["message"] == render(language, check["code"], check["params"])
        assert bool(HANGUL.search(check["message"])) == (language == "ko"), check["message"]


async def test_a_metric_check_answers_in_the_callers_language(nufi: httpx.AsyncClient, world: World) -> None:
    metrics = {**LPU_METRICS, "utilization": "sum(x", "temperature": "nothing_here_celsius"}
    answer = await nufi.post(
        "/api/v1/admin/devices/check-metrics",
        json={"labels": {**LPU_LABELS, "pod": "__pod"}, "metrics": metrics},
        headers=_in(world, "ko"),
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    broken = body["results"]["utilization"]
    assert broken["error_message"]["code"] == "metric_check.unparsable"
    assert broken["error"] == render("ko", "metric_check.unparsable", broken["error_message"]["params"])
    assert HANGUL.search(broken["error"]) and "Fix the PromQL" not in broken["error"]
    empty = body["results"]["temperature"]
    assert [w["code"] for w in empty["warning_messages"]] == ["metric_check.no_series"]
    said = render("ko", "metric_check.no_series", empty["warning_messages"][0]["params"])
    assert empty["warnings"] == [said]
    assert HANGUL.search(said) and "nothing_here_celsius" in said
    assert body["label_error_messages"]["pod"]["code"] == "promql.label.reserved"
    assert HANGUL.search(body["label_errors"]["pod"]), body["label_errors"]

    english = await nufi.post(
        "/api/v1/admin/devices/check-metrics",
        json={"labels": {**LPU_LABELS, "pod": "__pod"}, "metrics": metrics},
        headers=_in(world, "en"),
    )
    assert english.json()["results"]["utilization"]["error"].endswith("Fix the PromQL expression.")
    assert english.json()["results"]["temperature"]["warnings"][0].startswith("no series yet")
