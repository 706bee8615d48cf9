"""A refusal for want of quota names the field that must change: the replica count when one pod fits
the room and only their number does not, the per-pod count when even one pod is over; and it says so
in the reader's words, naming the device type by its name and never the quota's object."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.messages import Language, Message, render
from nufi.ui.i18n import CATALOG as DASHBOARD_CATALOG
from nufi.workloads.quotas.room import (
    QUOTA_NAME,
    Demand,
    Limit,
    Replicas,
    devices_demand,
    no_room,
    pods_demand,
)
from support.languages import korean_of

LPU = "hyperaccel.ai/lpu"


def _limit(hard: int, used: int, resource: str = f"requests.{LPU}") -> Limit:
    return Limit(QUOTA_NAME, resource, Decimal(hard), Decimal(used))


def _created(count: int, replicas: int) -> Demand:
    """What a deployment's create asks: `replicas` pods of `count` devices each."""
    return devices_demand(
        LPU,
        count * replicas,
        "accelerator.count",
        name="HyperAccel LPU",
        replicas=Replicas("replicas", count),
    )


def test_replicas_over_the_room_while_one_pod_fits_name_the_replicas_and_how_many_fit() -> None:
    refused = no_room("team-en", _limit(3, 2), _created(count=1, replicas=2))
    assert refused.field == "replicas"
    assert (refused.detail, korean_of(refused)) == (
        "Project 'team-en' has no room for 2 more HyperAccel LPU. Its quota allows 3 and 2 are in use, "
        "so only 1 more can be used. Lower the replicas to 1 or fewer, or ask an admin to raise the quota.",
        "프로젝트 'team-en'의 할당량에는 HyperAccel LPU 2개를 더 받을 여유가 없습니다. "
        "한도 3개 중 2개 사용 중이라 1개만 더 쓸 수 있습니다. "
        "복제본을 1개 이하로 줄이거나 관리자에게 할당량을 늘려 달라고 하세요.",
    )


def test_one_pod_over_the_room_names_the_count_per_pod() -> None:
    refused = no_room("team-en", _limit(3, 2), _created(count=2, replicas=1))
    assert refused.field == "accelerator.count"
    assert render("en", refused.code, refused.params).endswith(
        "Ask for fewer, or ask an admin to raise the quota."
    )


def test_nothing_left_names_the_count_and_only_an_admin_helps() -> None:
    refused = no_room("team-ko", _limit(3, 3), _created(count=1, replicas=2))
    assert refused.field == "accelerator.count"
    korean = render("ko", refused.code, refused.params)
    assert korean.endswith("한도 3개 모두 사용 중입니다. 관리자에게 할당량을 늘려 달라고 하세요.")
    assert "0개" not in korean and "쿼터" not in korean and QUOTA_NAME not in korean and LPU not in korean


def test_a_scale_names_the_replicas_counting_those_it_has() -> None:
    # 2 replicas of 2 devices run; the quota of 8 has 6 in use: 1 more replica fits, so at most 3.
    demand = devices_demand(
        LPU, 2 * 2, "replicas", name="HyperAccel LPU", replicas=Replicas("replicas", 2, counted=2)
    )
    refused = no_room("team-en", _limit(8, 6), demand)
    assert refused.field == "replicas"
    assert "Lower the replicas to 3 or fewer" in render("en", refused.code, refused.params)
    pods = no_room("team-en", _limit(5, 4, "pods"), pods_demand(3, "replicas", counted=2))
    assert pods.field == "replicas" and "Lower the replicas to 3 or fewer" in pods.detail
    assert "no room for 3 more pods" in pods.detail


@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 16), st.integers(0, 16))
def test_the_field_named_is_the_one_whose_change_can_fit(
    count: int, replicas: int, hard: int, used: int
) -> None:
    room = max(hard - used, 0)
    if count * replicas <= room:
        return  # admitted: nothing refused
    refused = no_room("p", _limit(hard, used), _created(count, replicas))
    if replicas > 1 and count <= room:
        assert refused.field == "replicas"
        fix = refused.params["fix"]
        assert isinstance(fix, Message)
        fitting = int(str(fix.params["replicas"]))
        assert fitting * count <= room < (fitting + 1) * count
    else:
        assert refused.field == "accelerator.count"


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_words_never_name_the_quota_object_or_the_key(language: Language) -> None:
    for hard, used in ((3, 2), (3, 3)):
        refused = no_room("p", _limit(hard, used), _created(count=1, replicas=2))
        text = render(language, refused.code, refused.params)
        assert QUOTA_NAME not in text and LPU not in text and "HyperAccel LPU" in text


def test_no_text_of_either_language_says_쿼터_or_names_the_quota_object() -> None:
    # Every page says 할당량; the quota's object name is Kubernetes', not the reader's.
    for language, texts in DASHBOARD_CATALOG.items():
        said = [code for code, text in texts.items() if "쿼터" in text or QUOTA_NAME in text]
        assert said == [], language
