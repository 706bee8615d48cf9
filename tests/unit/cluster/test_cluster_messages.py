"""Kubernetes' refusals and failures are codes with params: Kubernetes' own words stay whole inside
NuFi's sentence, which each reader gets in Korean or English."""

from __future__ import annotations

import pytest
from pydantic_core import PydanticCustomError

from nufi.cluster.kube_errors import KubeRefused, answer_error, list_refused, refusal_error, timed_out
from nufi.cluster.resources import CPU, check_quantity
from nufi.errors import Conflict, DependencyUnavailable, NotFound, NufiError, ValidationFailed
from nufi.messages import render
from support.languages import korean_of

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("status", "kind", "code", "said"),
    [
        (404, NotFound, "kube.not_found", "Kubernetes에서 찾을 수 없습니다: "),
        (409, Conflict, "kube.conflict", "Kubernetes에서 충돌이 났습니다: "),
        (422, ValidationFailed, "kube.object_refused", "Kubernetes가 객체를 거부했습니다: "),
        (
            403,
            DependencyUnavailable,
            "kube.credentials_refused",
            "Kubernetes가 NuFi의 자격 증명을 거부했습니다",
        ),
    ],
)
def test_a_refusal_keeps_kubernetes_words_inside_a_sentence_of_its_own(
    status: int, kind: type[NufiError], code: str, said: str
) -> None:
    error = refusal_error(KubeRefused(status, "Reason", 'pods "x" is forbidden'), field="name")
    assert isinstance(error, kind) and error.code == code
    assert error.params["message"] == 'pods "x" is forbidden' and error.params["status"] == status
    text = korean_of(error)
    assert text.startswith(said) and 'pods "x" is forbidden' in text


def test_a_list_refused_for_rights_names_the_scope_in_the_readers_language() -> None:
    error = list_refused(
        "https://k8s:6443", "/api/v1/namespaces/team/pods", KubeRefused(403, "Forbidden", "no")
    )
    assert error.code == "kube.list_refused_rights"
    assert error.detail.endswith("grant NuFi's service account 'list' on 'pods' in namespace team")
    assert "네임스페이스 team의 pods에 대한 list 권한을 부여하세요" in korean_of(error)
    bare = list_refused("https://k8s:6443", "/api/v1/nodes", KubeRefused(500, "", ""))
    assert bare.detail == "the Kubernetes API at https://k8s:6443 refused to list nodes (HTTP 500)"


def test_throttling_and_timeouts_say_how_long_in_seconds() -> None:
    throttled = answer_error("https://k8s", "GET /api/v1/pods", 429, {"Retry-After": "7"}, "slow down", "")
    assert isinstance(throttled, DependencyUnavailable) and throttled.code == "kube.throttled"
    assert throttled.retry_after_seconds == 7 and "7초 뒤 재시도" in korean_of(throttled)
    late = timed_out("https://k8s", "GET /api/v1/pods", 2.5)
    assert (late.code, late.params["timeout"]) == ("kube.timed_out", 2.5)
    assert "2.5초 안에 응답하지 않았습니다" in korean_of(late)


@pytest.mark.parametrize(
    ("value", "code", "korean_text"),
    [
        ("lots", "quantity.invalid", "'lots'은(는) Kubernetes 수량이 아닙니다(예: 500m, 2, 2Gi)"),
        ("-2", "quantity.not_positive", "'-2'은(는) 부호 없는 양수 수량이어야 합니다(예: 500m, 2, 2Gi)"),
    ],
)
def test_a_quantity_refused_is_a_code_a_form_words_in_korean(value: str, code: str, korean_text: str) -> None:
    with pytest.raises(PydanticCustomError) as caught:
        check_quantity(value, CPU)
    assert (caught.value.type, caught.value.context) == (code, {"value": value})
    assert render("ko", code, caught.value.context) == korean_text
    assert caught.value.message() == render("en", code, caught.value.context)
