"""The workload forms' own parsing and wording, no cluster needed: env lines, member lists, ages, the
Accelerator drop-down's per-node counts and the warning under the count field."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from nufi.devices.spec import DeviceType
from nufi.ui.i18n import Translator
from nufi.ui.pages.deployments import parse_env
from nufi.ui.pages.projects import split_members
from nufi.ui.parts.project_quotas import fraction, shown_types
from nufi.ui.parts.workload_accelerators import (
    FitWarning,
    accelerator_label,
    fit_warning,
    quota_text,
    quota_warning,
)
from nufi.ui.parts.workload_forms import accelerator_text, age, age_cells, as_int, chosen_project
from nufi.workloads.accelerators import AcceleratorOffer, NodeOffer
from nufi.workloads.projects.service import Project
from nufi.workloads.quotas.request import QuotaRequest
from nufi.workloads.quotas.service import DeviceQuota, ProjectQuota
from support.languages import english_sentences, korean_sentence
from support.lpu_type import lpu_type

_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
_VALUES = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=30)

EN, KO = Translator("en"), Translator("ko")


@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=8))
def test_env_lines_come_back_as_the_pairs_they_were_written_from(pairs: list[tuple[str, str]]) -> None:
    written = "\n".join(f"{name}={value}" for name, value in pairs)
    assert parse_env(written) == [{"name": name, "value": value} for name, value in pairs]


def test_env_blank_lines_are_skipped_and_a_value_may_hold_equals_signs() -> None:
    assert parse_env("\nA=1\n\n  \nB=x=y\n") == [{"name": "A", "value": "1"}, {"name": "B", "value": "x=y"}]


def test_an_env_line_without_a_name_or_an_equals_sign_is_named_by_its_number() -> None:
    assert parse_env("A=1\nJUSTAWORD") == "2: 'JUSTAWORD'"
    assert parse_env("=value") == "1: '=value'"


@given(st.lists(st.from_regex(r"[a-z][a-z0-9.-]{0,10}", fullmatch=True), max_size=6))
def test_members_may_be_separated_by_commas_spaces_or_new_lines(names: list[str]) -> None:
    assert split_members(", ".join(names)) == names
    assert split_members("\n".join(names)) == names
    assert split_members(" ,, ".join(names)) == names


def test_ages_as_kubectl_shows_them() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

    def ago(delta: timedelta) -> str:
        return (now - delta).strftime("%Y-%m-%dT%H:%M:%SZ")

    assert age(ago(timedelta(seconds=45)), EN, now) == "45s"
    assert age(ago(timedelta(minutes=12, seconds=3)), EN, now) == "12m"
    assert age(ago(timedelta(hours=3)), KO, now) == "3시간"
    assert age(ago(timedelta(days=2, hours=5)), KO, now) == "2일"
    assert age(None, EN, now) == "—" and age("not a time", EN, now) == "—"
    # A clock a little behind the API server's is not a negative age.
    assert age(ago(timedelta(seconds=-5)), EN, now) == "0s"


def test_number_inputs_become_whole_numbers_and_anything_else_is_left_for_validation() -> None:
    assert as_int(3.0) == 3
    assert as_int(2.5) == 2.5
    assert as_int(None) is None


def test_the_url_project_is_kept_only_when_the_person_may_see_it() -> None:
    mine = [Project("alpha", ("user",)), Project("beta", ("user",))]
    assert chosen_project(mine, "beta") == "beta"
    assert chosen_project(mine, "theirs") == "alpha"
    assert chosen_project(mine, "") == "alpha"
    assert chosen_project([], "alpha") is None


def _lpu(*nodes: tuple[int, int]) -> AcceleratorOffer:
    """The LPU offered on nodes of (allocatable, free) devices."""
    offers = tuple(NodeOffer(f"lpu-node-{i}", alloc, alloc, free) for i, (alloc, free) in enumerate(nodes, 1))
    return AcceleratorOffer(
        device_type="lpu",
        name="HyperAccel LPU",
        vendor="HyperAccel",
        resource_key="hyperaccel.ai/lpu",
        capacity=sum(n.capacity for n in offers),
        allocatable=sum(n.allocatable for n in offers),
        free=sum(n.free for n in offers),
        nodes=offers,
    )


def test_an_option_names_the_type_its_free_devices_and_the_most_one_node_has() -> None:
    offer = _lpu((6, 1), (4, 4))
    assert accelerator_label(EN, offer) == "HyperAccel LPU — 5 free (at most 4 on one node now)"
    assert accelerator_label(KO, offer) == "HyperAccel LPU — 5개 사용 가능 (지금 한 노드에 최대 4개)"
    assert accelerator_label(EN, _lpu((6, 0), (4, 0))) == "HyperAccel LPU — none free now"


def test_a_count_that_fits_no_node_now_is_amber_and_one_that_fits_none_ever_is_red() -> None:
    offer = _lpu((6, 1), (4, 4))
    assert fit_warning(EN, offer, 4) is None and fit_warning(EN, offer, 1.0) is None
    now = fit_warning(EN, offer, 5.0)
    assert now is not None and now.level == "now"
    assert now.text.startswith("No node has 5 HyperAccel LPU devices free right now (at most 4 on one node)")
    never = fit_warning(EN, offer, 7)
    assert never is not None and never.level == "never"
    assert "No node has 7 HyperAccel LPU devices at all (at most 6 on one node)" in never.text
    korean = fit_warning(KO, offer, 7)
    assert korean is not None and korean.level == "never"
    assert korean.text.startswith("HyperAccel LPU 7개를 가진 노드가 없습니다(한 노드에 최대 6개)")
    assert english_sentences(korean.text) == []
    # One device, none free anywhere: the singular, and the pod waits.
    single = fit_warning(EN, _lpu((6, 0)), 1)
    assert single is not None and single.level == "now" and "1 HyperAccel LPU device free" in single.text
    # What is not a whole number from 1 is left for the form's validation.
    assert fit_warning(EN, offer, 2.5) is None and fit_warning(EN, offer, None) is None
    assert fit_warning(EN, offer, 0) is None and fit_warning(EN, None, 9) is None


def test_a_row_names_the_type_and_keeps_the_instant_for_its_tooltip() -> None:
    assert accelerator_text({"lpu": "HyperAccel LPU"}, "lpu", 2) == "HyperAccel LPU \N{MULTIPLICATION SIGN} 2"
    assert accelerator_text({}, "gone", 1) == "gone \N{MULTIPLICATION SIGN} 1"
    assert accelerator_text({}, None, None) == "—"
    cells = age_cells(KO, "2026-01-02T03:04:05Z")
    assert cells["created"] == "2026-01-02T03:04:05+00:00"
    assert cells["created_utc"] == "2026-01-02 03:04:05 UTC"
    assert cells["age"].endswith("일")
    assert age_cells(EN, None) == {"age": "—", "created": "", "created_utc": ""}


def test_the_projects_quota_is_told_beside_the_free_devices_in_both_languages() -> None:
    offer = replace(_lpu((6, 6), (4, 4)), quota=4, in_use=2)
    assert quota_text(EN, offer) == "Project quota: 2 of 4 HyperAccel LPU in use by this project"
    assert quota_text(KO, offer) == "프로젝트 할당량: HyperAccel LPU 4개 중 2개 사용 중"
    assert quota_text(EN, _lpu((6, 6))) == "Project quota: no limit on HyperAccel LPU"
    assert english_sentences(quota_text(KO, _lpu((6, 6)))) == []
    assert quota_text(EN, None) == ""


def test_a_count_past_the_quotas_room_is_red_before_free_devices_are_counted() -> None:
    offer = replace(_lpu((6, 6), (4, 4)), quota=4, in_use=2)
    assert fit_warning(EN, offer, 2) is None
    over = fit_warning(EN, offer, 3)
    assert over is not None and over.level == "quota"
    assert over.text == "The project's quota of 4 HyperAccel LPU has room for 2 more: the service refuses 3."
    korean = fit_warning(KO, offer, 3)
    assert korean is not None and korean.level == "quota" and english_sentences(korean.text) == []
    # A quota used past its limit (lowered meanwhile) leaves no room, not a negative one: said so.
    full = fit_warning(EN, replace(offer, in_use=5), 1)
    assert full is not None and full.text == (
        "The project's quota of 4 HyperAccel LPU is used up: the service refuses 1 more."
    )
    assert "0개" not in korean_sentence(_text(fit_warning(KO, replace(offer, in_use=5), 1)))


def _text(warning: FitWarning | None) -> str:
    assert warning is not None and warning.level == "quota", warning
    return warning.text


def test_replicas_multiply_the_count_against_the_quotas_room_before_submit() -> None:
    offer = replace(_lpu((6, 6), (4, 4)), quota=3, in_use=2)
    assert fit_warning(EN, offer, 1, 1) is None and fit_warning(EN, offer, 1, 0) is None
    # One pod fits the room, two do not: the replicas are what to lower, and to how many.
    assert _text(fit_warning(EN, offer, 1, 2)) == (
        "The project's quota of 3 HyperAccel LPU has room for 1 more: 2 more replicas "
        "\N{MULTIPLICATION SIGN} 1 = 2 is refused. At most 1 replica fits."
    )
    assert korean_sentence(_text(fit_warning(KO, offer, 1, 2))) == (
        "프로젝트 할당량(HyperAccel LPU 3개)에 남은 여유는 1개입니다. 복제본 2개 "
        "\N{MULTIPLICATION SIGN} 1개 = 2개를 더 요청하면 거절됩니다. 복제본은 최대 1개까지 가능합니다."
    )
    # One pod over the room by itself: the count is what the warning speaks of.
    assert _text(fit_warning(EN, offer, 2, 1)).endswith("the service refuses 2.")
    # A replica count the form's validation will name counts as one pod.
    assert fit_warning(EN, offer, 1, 2.5) is None


def test_the_scale_dialog_counts_only_the_replicas_it_adds() -> None:
    # 2 replicas of 2 LPUs run; the quota of 8 has 6 in use: one more replica fits.
    offer = replace(_lpu((6, 6), (4, 4)), quota=8, in_use=6)
    assert quota_warning(EN, offer, 2, 3, counted=2) is None
    assert quota_warning(EN, offer, 2, 1, counted=2) is None
    assert _text(quota_warning(EN, offer, 2, 4, counted=2)) == (
        "The project's quota of 8 HyperAccel LPU has room for 2 more: 2 more replicas "
        "\N{MULTIPLICATION SIGN} 2 = 4 is refused. At most 3 replicas fit."
    )


def test_the_quota_editor_lists_enabled_types_and_every_type_the_quota_still_limits() -> None:
    lpu = DeviceType.model_validate(lpu_type() | {"kind": "custom"})
    off = lpu.model_copy(update={"id": "npu", "name": "Old NPU", "enabled": False})
    limited = ProjectQuota(
        "p", (DeviceQuota("npu", "x.io/npu", 1, 0), DeviceQuota("gone", "y.io/z", 2, 0)), None, None
    )
    assert shown_types([lpu, off], ProjectQuota("p", (), None, None)) == [("lpu", "HyperAccel LPU")]
    # A disabled or deleted type keeps its row while limited, so saving does not drop its limit unseen.
    assert shown_types([lpu, off], limited) == [
        ("lpu", "HyperAccel LPU"),
        ("npu", "Old NPU"),
        ("gone", "gone"),
    ]


def test_a_usage_bar_is_full_at_the_limit_and_past_it() -> None:
    assert fraction(Decimal(1), Decimal(4)) == 0.25
    assert fraction(Decimal(5), Decimal(4)) == 1.0
    assert (fraction(Decimal(0), Decimal(0)), fraction(Decimal(1), Decimal(0))) == (0.0, 1.0)


def test_the_quota_form_refuses_what_the_api_refuses_naming_the_field() -> None:
    assert QuotaRequest.model_validate({"devices": {"lpu": 2}, "storage": "10Gi", "pods": 0}).spec().pods == 0
    for bad, field in (
        ({"devices": {"lpu": -1}}, ("devices", "lpu")),
        ({"storage": "lots"}, ("storage",)),
        ({"pods": 2.5}, ("pods",)),
        ({"pods": 1_000_001}, ("pods",)),
    ):
        with pytest.raises(ValidationError) as refused:
            QuotaRequest.model_validate(bad)
        assert refused.value.errors()[0]["loc"] == field, bad
