"""A ResourceQuota's admission refusal (kube-apiserver's 403 Forbidden, "exceeded quota: ...") is the
caller's 422 `quota.exceeded`, with the quota, the resource and its figures as Kubernetes wrote them;
it is never taken for NuFi's credentials being refused (a 503 with Retry-After)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.cluster.kube_errors import answer_error, quota_refusal, refusal_error
from nufi.cluster.kube_rest import KubeRefused
from nufi.errors import DependencyUnavailable, ValidationFailed
from nufi.messages import render
from support.languages import korean_of

CLAIM = (
    'persistentvolumeclaims "lab-home" is forbidden: exceeded quota: nufi-accelerators, '
    "requested: requests.storage=4Gi, used: requests.storage=8Gi, limited: requests.storage=10Gi"
)
POD = (
    'pods "web-1" is forbidden: exceeded quota: team, requested: pods=1,requests.hyperaccel.ai/lpu=2, '
    "used: pods=3,requests.hyperaccel.ai/lpu=3, limited: pods=10,requests.hyperaccel.ai/lpu=4"
)
PATH = "/api/v1/namespaces/team-a/persistentvolumeclaims"


def _refused(message: str, status: int = 403) -> KubeRefused:
    error = answer_error("https://k8s", f"POST {PATH}", status, {}, message, "Forbidden", path=PATH)
    assert isinstance(error, KubeRefused)
    return error


def test_a_claim_refused_by_a_storage_quota_is_a_422_naming_the_field_and_the_room() -> None:
    refused = refusal_error(_refused(CLAIM), field="storage_gib")
    assert isinstance(refused, ValidationFailed) and refused.status == 422
    assert (refused.code, refused.field) == ("quota.exceeded", "storage_gib")
    figures = ("project", "quota", "resource_key", "hard", "used", "requested", "room")
    assert {key: refused.params[key] for key in figures} == {
        "project": "team-a",
        "quota": "nufi-accelerators",
        "resource_key": "storage",
        "hard": "10Gi",
        "used": "8Gi",
        "requested": "4Gi",
        "room": "2Gi",
    }
    english = (
        "Project 'team-a' has no room for 4Gi more storage. Its quota allows 10Gi and 8Gi are in use, "
        "so only 2Gi more can be used. Ask for fewer, or ask an admin to raise the quota."
    )
    korean = (
        "프로젝트 'team-a'의 할당량에는 스토리지 4Gi를 더 받을 여유가 없습니다. 한도 10Gi 중 8Gi 사용 중이라 "
        "2Gi만 더 쓸 수 있습니다. 더 적게 요청하거나 관리자에게 할당량을 늘려 달라고 하세요."
    )
    assert (refused.detail, korean_of(refused)) == (english, korean)


def test_a_quota_with_nothing_left_says_so_in_a_sentence_of_its_own_and_names_no_object() -> None:
    full = CLAIM.replace("used: requests.storage=8Gi", "used: requests.storage=10Gi")
    refused = quota_refusal(_refused(full), field="storage_gib")
    assert refused is not None and refused.params["room"] == "0"
    english, korean = (render(language, refused.code, refused.params) for language in ("en", "ko"))
    assert english == (
        "Project 'team-a' has no room for 4Gi more storage. Its quota of 10Gi is used up. "
        "Ask an admin to raise the quota."
    )
    assert korean == (
        "프로젝트 'team-a'의 할당량에는 스토리지 4Gi를 더 받을 여유가 없습니다. "
        "한도 10Gi 모두 사용 중입니다. 관리자에게 할당량을 늘려 달라고 하세요."
    )
    for text in (english, korean):
        assert "nufi-accelerators" not in text and "쿼터" not in text and "0 more" not in text


def test_a_pod_refused_names_the_accelerator_it_has_no_room_for() -> None:
    refused = quota_refusal(_refused(POD), field="replicas")
    assert refused is not None and refused.field == "replicas"
    assert (refused.params["resource_key"], refused.params["room"]) == ("hyperaccel.ai/lpu", "1")
    assert refused.params["quota"] == "team"


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (403, 'pods is forbidden: User "system:serviceaccount:nufi:nufi" cannot create resource "pods"'),
        (401, "Unauthorized"),
        (403, 'pods "x" is forbidden: failed quota: team: must specify requests.cpu'),
    ],
)
def test_other_refusals_stay_what_they_were(status: int, message: str) -> None:
    refused = _refused(message, status)
    assert quota_refusal(refused) is None
    assert isinstance(refusal_error(refused), DependencyUnavailable)


def test_a_quota_message_in_another_status_is_not_taken_for_admission() -> None:
    assert quota_refusal(_refused(CLAIM, status=422)) is None


@given(
    st.sampled_from(["requests.storage", "pods", "requests.example.com/npu", "count/pods"]),
    st.integers(0, 10**6),
    st.integers(1, 10**6),
    st.integers(1, 10**6),
)
def test_any_figures_admission_writes_give_the_room_it_left(
    resource: str, used: int, requested: int, hard: int
) -> None:
    message = (
        f'x "y" is forbidden: exceeded quota: q, requested: {resource}={requested}, '
        f"used: {resource}={used}, limited: {resource}={hard}"
    )
    refused = quota_refusal(_refused(message))
    assert refused is not None
    assert refused.params["requested"] == str(requested) and refused.params["hard"] == str(hard)
    room = max(hard - used, 0)
    assert refused.params["room"] in (str(room), f"{room // 1024}Ki", f"{room // 1024**2}Mi")
